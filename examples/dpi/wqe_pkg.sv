// SPDX-License-Identifier: MIT
// wqe_pkg - the wqe golden model (libwqe_dpi, include/wqe/dpi.h) for a
// SystemVerilog testbench: "DPI-C" imports of its functions, the sizes of
// their buffers, and the index of each field in the arrays wqe_dpi_decode
// and wqe_dpi_parse fill.
//
// Arrays are fixed-size unpacked arrays (not open arrays): a simulator
// passes them as a pointer to the first element (IEEE 1800 H.7.5), which
// is what the C functions take, so libwqe_dpi needs no simulator runtime
// and works with any DPI simulator (Verilator 5, Questa, Xcelium, VCS).
// The capacity of each array is passed as an argument too; the functions
// never write past it.
//
// Every function returns a negative error code (WQE_DPI_E*) on failure and
// writes its message into msg[] (NUL-terminated); wqe_msg() turns that into
// a string. No function keeps state: they may be called from any process
// or thread, in any order. Link: -lwqe_dpi (it pulls in libwqe).
//
// The field indices below are checked against the library by the test
// dpi_c (tests/dpi/test_dpi.c): WQE_D_<NAME> is wqe_dpi_decode_field(),
// WQE_P_<NAME> wqe_dpi_parse_field(), upper-cased.
package wqe_pkg;
  // A bench uses the constants it needs.
  /* verilator lint_off UNUSEDPARAM */

  localparam int WQE_MAX = 1024;     // bytes of the largest WQE (16 blocks)
  localparam int FRAME_MAX = 4352;   // bytes of the largest frame
  localparam int MSG_MAX = 256;      // bytes of a message buffer
  localparam int FIELDS_MAX = 256;   // entries of a field array
  localparam int SGE_MAX = 64;       // SGEs of one request
  localparam int INLINE_MAX = 4096;  // inline bytes of one request

  localparam int WQE_DPI_OK = 0;
  localparam int WQE_DPI_EARG = -1;      // NULL pointer, bad length
  localparam int WQE_DPI_EOPT = -2;      // bad option
  localparam int WQE_DPI_EREQUEST = -3;  // request refused (parse, post-time checks)
  localparam int WQE_DPI_EWQE = -4;      // bytes the decoder refuses
  localparam int WQE_DPI_EFRAME = -5;    // not a well-formed RoCEv2 frame
  localparam int WQE_DPI_ESPACE = -6;    // output array too small
  localparam int WQE_DPI_ERANGE = -7;    // packet index past the last
  localparam int WQE_DPI_ENOMEM = -8;

  // wqe_dpi_decode(): what the WQE says, then what the NIC does with it,
  // then (address, length, lkey) per SGE from WQE_D_SGE_BASE on.
  localparam int WQE_D_FORMAT = 0;
  localparam int WQE_D_OP = 1;
  localparam int WQE_D_QPN = 2;
  localparam int WQE_D_WQE_INDEX = 3;
  localparam int WQE_D_DS = 4;
  localparam int WQE_D_NBLOCKS = 5;
  localparam int WQE_D_SIZE = 6;
  localparam int WQE_D_FENCE = 7;
  localparam int WQE_D_SIGNALED = 8;
  localparam int WQE_D_SOLICITED = 9;
  localparam int WQE_D_INLINE = 10;
  localparam int WQE_D_IMM = 11;
  localparam int WQE_D_REMOTE_ADDR = 12;
  localparam int WQE_D_RKEY = 13;
  localparam int WQE_D_SWAP_ADD = 14;
  localparam int WQE_D_COMPARE = 15;
  localparam int WQE_D_NUM_SGE = 16;
  localparam int WQE_D_TOTAL_LEN = 17;
  localparam int WQE_D_INLINE_LEN = 18;
  localparam int WQE_D_UD_QKEY = 19;
  localparam int WQE_D_UD_DQPN = 20;
  localparam int WQE_D_UD_SPORT = 21;
  localparam int WQE_D_UD_SL = 22;
  localparam int WQE_D_UD_TCLASS = 23;
  localparam int WQE_D_UD_HOP_LIMIT = 24;
  localparam int WQE_D_UD_FLOW_LABEL = 25;
  localparam int WQE_D_UD_DMAC = 26;
  localparam int WQE_D_UD_DGID_HI = 27;
  localparam int WQE_D_UD_DGID_LO = 28;
  localparam int WQE_D_UD_AH_NUM = 29;
  localparam int WQE_D_STATUS = 30;
  localparam int WQE_D_COMPLETES = 31;
  localparam int WQE_D_NPKTS = 32;
  localparam int WQE_D_NPSN = 33;
  localparam int WQE_D_FIRST_OPCODE = 34;
  localparam int WQE_D_SGE_BASE = 35;

  // wqe_dpi_parse(): the header fields of a frame.
  localparam int WQE_P_HAS_VLAN = 0;
  localparam int WQE_P_VLAN_TCI = 1;
  localparam int WQE_P_DMAC = 2;
  localparam int WQE_P_SMAC = 3;
  localparam int WQE_P_ETHERTYPE = 4;
  localparam int WQE_P_IPVER = 5;
  localparam int WQE_P_SRC_HI = 6;
  localparam int WQE_P_SRC_LO = 7;
  localparam int WQE_P_DST_HI = 8;
  localparam int WQE_P_DST_LO = 9;
  localparam int WQE_P_TOS = 10;
  localparam int WQE_P_TTL = 11;
  localparam int WQE_P_FLOW_LABEL = 12;
  localparam int WQE_P_IP_ID = 13;
  localparam int WQE_P_IP_FLAGS = 14;
  localparam int WQE_P_IP_LEN = 15;
  localparam int WQE_P_IP_CSUM = 16;
  localparam int WQE_P_IP_CSUM_OK = 17;
  localparam int WQE_P_SPORT = 18;
  localparam int WQE_P_DPORT = 19;
  localparam int WQE_P_UDP_LEN = 20;
  localparam int WQE_P_UDP_CSUM = 21;
  localparam int WQE_P_UDP_CSUM_OK = 22;
  localparam int WQE_P_OPCODE = 23;
  localparam int WQE_P_SE = 24;
  localparam int WQE_P_MIGREQ = 25;
  localparam int WQE_P_PADCNT = 26;
  localparam int WQE_P_TVER = 27;
  localparam int WQE_P_PKEY = 28;
  localparam int WQE_P_FECN = 29;
  localparam int WQE_P_BECN = 30;
  localparam int WQE_P_DESTQP = 31;
  localparam int WQE_P_ACKREQ = 32;
  localparam int WQE_P_PSN = 33;
  localparam int WQE_P_HDRS = 34;
  localparam int WQE_P_RETH_VA = 35;
  localparam int WQE_P_RETH_RKEY = 36;
  localparam int WQE_P_RETH_DMA_LEN = 37;
  localparam int WQE_P_AETH_SYNDROME = 38;
  localparam int WQE_P_AETH_MSN = 39;
  localparam int WQE_P_ATOMIC_VA = 40;
  localparam int WQE_P_ATOMIC_RKEY = 41;
  localparam int WQE_P_ATOMIC_SWAP_ADD = 42;
  localparam int WQE_P_ATOMIC_COMPARE = 43;
  localparam int WQE_P_ATOMICACK_ORIG = 44;
  localparam int WQE_P_IMM = 45;
  localparam int WQE_P_IETH_RKEY = 46;
  localparam int WQE_P_DETH_QKEY = 47;
  localparam int WQE_P_DETH_SRCQP = 48;
  localparam int WQE_P_PAYLOAD_OFF = 49;
  localparam int WQE_P_PAYLOAD_LEN = 50;
  localparam int WQE_P_ICRC = 51;
  localparam int WQE_P_ICRC_OK = 52;
  /* verilator lint_on UNUSEDPARAM */

  // Encode one request line (the text form of `wqe encode`) with `wqe
  // encode` options ("--format rxe --qp ud"): the bytes `wqe encode --raw`
  // prints. Returns their count.
  import "DPI-C" function int wqe_dpi_encode(input string line, input string opts,
      output byte unsigned wqe[WQE_MAX], input int cap,
      output byte unsigned msg[MSG_MAX], input int msgcap);

  // The same for a request given by fields: opcode is a wqe_wr_opcode
  // (WRITE 0, WRITE_IMM 1, SEND 2, SEND_IMM 3, READ 4, CAS 5, FAA 6,
  // SEND_INV 9), flags FENCE 1 | SIGNALED 2 | SOLICITED 4.
  import "DPI-C" function int wqe_dpi_encode_fields(input string opts, input int opcode,
      input int unsigned flags, input longint unsigned wr_id, input longint unsigned raddr,
      input int unsigned rkey, input int unsigned imm, input longint unsigned swap_add,
      input longint unsigned compare, input int unsigned dqpn, input int unsigned qkey,
      input int num_sge, input longint unsigned sge_addr[SGE_MAX],
      input int unsigned sge_len[SGE_MAX], input int unsigned sge_lkey[SGE_MAX],
      input byte unsigned inline_data[INLINE_MAX], input int inline_len,
      output byte unsigned wqe[WQE_MAX], input int cap,
      output byte unsigned msg[MSG_MAX], input int msgcap);

  // Decode WQE bytes as the NIC does: the entries written to fields[].
  import "DPI-C" function int wqe_dpi_decode(input string opts,
      input byte unsigned wqe[WQE_MAX], input int len,
      output longint unsigned fields[FIELDS_MAX], input int nfields,
      output byte unsigned msg[MSG_MAX], input int msgcap);
  import "DPI-C" function string wqe_dpi_decode_field(input int i);

  // The packets of a WQE: how many, then packet index (its length).
  import "DPI-C" function int wqe_dpi_packet_count(input string opts,
      input byte unsigned wqe[WQE_MAX], input int len,
      output byte unsigned msg[MSG_MAX], input int msgcap);
  import "DPI-C" function int wqe_dpi_packet(input string opts,
      input byte unsigned wqe[WQE_MAX], input int len, input int index,
      output byte unsigned frame[FRAME_MAX], input int cap,
      output byte unsigned msg[MSG_MAX], input int msgcap);

  // The ICRC of a frame, computed over its bytes (0 or an error).
  import "DPI-C" function int wqe_dpi_icrc(input byte unsigned frame[FRAME_MAX], input int len,
      output int unsigned icrc, output byte unsigned msg[MSG_MAX], input int msgcap);

  // Parse a frame into fields[] (WQE_P_* indices): WQE_P_COUNT.
  import "DPI-C" function int wqe_dpi_parse(input byte unsigned frame[FRAME_MAX], input int len,
      output longint unsigned fields[FIELDS_MAX], input int nfields,
      output byte unsigned msg[MSG_MAX], input int msgcap);
  import "DPI-C" function string wqe_dpi_parse_field(input int i);
  import "DPI-C" function string wqe_dpi_err_str(input int err);

  // The message a call left in msg[], as a string.
  function automatic string wqe_msg(input byte unsigned msg[MSG_MAX]);
    string s = "";
    for (int i = 0; i < MSG_MAX && msg[i] != 0; i++)
      s = $sformatf("%s%c", s, msg[i]);
    return s;
  endfunction

endpackage
