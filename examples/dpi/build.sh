#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Verilator bench of this directory against libwqe_dpi.
#
# usage: build.sh OUT_DIR INCLUDE_DIR LIB_DIR
#   OUT_DIR      where Verilator writes its C++ and the binary OUT_DIR/Vtb
#   INCLUDE_DIR  the directory holding wqe/dpi.h (the source tree's include/,
#                or PREFIX/include once installed)
#   LIB_DIR      the directory holding libwqe_dpi.so (the build tree, or
#                PREFIX/lib)
# Then run OUT_DIR/Vtb [+n=N] [+seed=S] [+broken].
#
# Verilator 5 (Debian 12: 5.006). The C++ is compiled at -O0: the bench is
# small, and most of the build time is Verilator's own runtime, which an
# optimizing build makes several times slower to compile. A missing
# verilator is an error, never a skip.
set -euo pipefail
[ $# -eq 3 ] || { sed -n 4,11p "$0" >&2; exit 2; }
out=$1 inc=$2 lib=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v verilator >/dev/null; then
	echo "build.sh: verilator not found (Debian: apt-get install verilator;" \
		"scripts/deps.sh installs it)" >&2
	exit 1
fi
inc=$(cd "$inc" && pwd)
lib=$(cd "$lib" && pwd)
mkdir -p "$out"
verilator --cc --exe --build -j "${WQE_VERILATOR_JOBS:-1}" -Wall --top-module tb \
	-Mdir "$out" -o Vtb \
	-CFLAGS "-I$inc -O0" -LDFLAGS "-L$lib -lwqe_dpi -Wl,-rpath,$lib" \
	-MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" \
	"$here/wqe_pkg.sv" "$here/mlx5_ctrl_parser.sv" "$here/tb.sv" "$here/main.cpp"
