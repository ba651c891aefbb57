# Turns a text file into a C header holding its bytes (used for wqe demo:
# the demo runs examples/demo.wqe, embedded at build time, so the file users
# read and the scenario the binary runs are one and the same).
#   cmake -DIN=file -DOUT=header.h -DNAME=identifier -P embed.cmake
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "/* Generated from ${IN} by embed.cmake: do not edit. */\n"
  "static const unsigned char ${NAME}[] = {\n${bytes}0x00};\n"
  "static const unsigned long ${NAME}_len = ${len}ul;\n")
file(RENAME ${OUT}.tmp ${OUT})
