/* SPDX-License-Identifier: MIT */
/*
 * wqe/dpi.h - the golden model for a testbench: libwqe_dpi.
 *
 * Flat C functions that a SystemVerilog testbench imports with
 * `import "DPI-C"` (examples/dpi/wqe_pkg.sv has the declarations) and that
 * Python loads with ctypes (python/wqe). They encode a Work Request into
 * WQE bytes, decode WQE bytes and say what the NIC does with them, expand
 * a WQE into its RoCEv2 frames, compute a frame's ICRC and parse a frame
 * into header fields.
 *
 * Argument types are the ones IEEE 1800 DPI maps SystemVerilog types to,
 * as Verilator 5 writes them in its generated __Dpi.h, so that header and
 * this one declare the same functions:
 *   input string                         const char *
 *   int / int unsigned                   int / unsigned int
 *   longint unsigned                     unsigned long long
 *   output int / int unsigned            int * / unsigned int *
 *   input  byte unsigned a[N] (sized)    const unsigned char *
 *   output byte unsigned a[N] (sized)    unsigned char *
 *   input/output longint unsigned a[N]   (const) unsigned long long *
 *   output int a[N]                      int *
 * Fixed-size unpacked arrays (not open arrays `a[]`) are used so that the
 * library needs no simulator runtime (svOpenArrayHandle accessors live in
 * the simulator): a C or Python caller passes plain buffers. Every buffer
 * comes with its size in bytes or entries as an explicit argument, which
 * the functions never exceed; the package's localparams give the sizes.
 *
 * Options: @opts is one string of `wqe encode` options separated by
 * whitespace, exactly as on the command line ("--format rxe --qp ud
 * --pmtu 4096", "--max-inline=64"); NULL or "" for the defaults. They are
 * parsed by the CLI's own parser (tools/wqe/encode_opt.c, compiled into
 * this library), so an option means here what it means to `wqe encode`.
 * --raw, --packets and --pcap are the caller's choice of function, not
 * options: they are refused. At most WQE_DPI_OPTS_MAX bytes.
 *
 * Errors: every function returns a negative enum wqe_dpi_err on failure,
 * having written a NUL-terminated message (at most @msgcap bytes, cut if
 * longer) to @msg, e.g. "column 23: expected a number after 'rkey='"; on
 * success @msg is set to "". @msg may be NULL (@msgcap is then ignored).
 * Nothing is ever printed. Output buffers are unspecified after an error.
 *
 * Threading: no global state, no static buffers; every function is
 * reentrant and may run on any number of threads at once. Each call
 * takes its working storage (some tens of KB, and the synthetic memory
 * below for the packets of a message) from the heap, not a simulator's
 * stack, and frees it before it returns: WQE_DPI_ENOMEM if it cannot.
 *
 * Payload: a WQE names host memory by SGE; the model reads a synthetic
 * memory in which the byte at address A is A & 0xff, as `wqe encode
 * --packets` does. Inline payload is in the WQE.
 */
#ifndef WQE_DPI_H
#define WQE_DPI_H

#include "wqe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest WQE any call returns: 16 blocks of 64 bytes (an rxe slot is at
 * most 1024 bytes too). */
#define WQE_DPI_WQE_MAX 1024
/* Largest frame: WQE_FRAME_MAX of wqe/wire.h. */
#define WQE_DPI_FRAME_MAX 4352
/* A message buffer of this size holds any message. */
#define WQE_DPI_MSG_MAX 256
/* Longest @opts string, NUL excluded. */
#define WQE_DPI_OPTS_MAX 1023
/* Most request or option text of one line wqe_dpi_encode() takes. */
#define WQE_DPI_LINE_MAX 12287
/* A field array of this many entries holds any decode or parse result. */
#define WQE_DPI_FIELDS_MAX 256

/* Error codes, all negative. */
enum wqe_dpi_err {
	WQE_DPI_OK = 0,
	WQE_DPI_EARG = -1,     /* a NULL pointer, a negative or oversized length */
	WQE_DPI_EOPT = -2,     /* an unknown option, a bad value, options that conflict */
	WQE_DPI_EREQUEST = -3, /* a request the parser or the post-time checks refuse */
	WQE_DPI_EWQE = -4,     /* bytes the decoder refuses as a WQE */
	WQE_DPI_EFRAME = -5,   /* bytes that are not a well-formed RoCEv2 frame */
	WQE_DPI_ESPACE = -6,   /* an output buffer too small */
	WQE_DPI_ERANGE = -7,   /* a packet index past the last packet */
	WQE_DPI_ENOMEM = -8,   /* out of memory */
};

/* A static string naming @err ("bad option", ...); "unknown error" else. */
WQE_API const char *wqe_dpi_err_str(int err);

/*
 * wqe_dpi_encode - encode one request line into its WQE, the bytes
 * `wqe encode --raw OPTS 'LINE'` prints.
 * @line: one request in the text form of wqe/text.h ("write
 *        raddr=0x1000 rkey=7 inline=a0a1 flags=signaled"); a '#' comment
 *        may follow. A receive request ("recv sge=...") gives its slot of
 *        the receive ring.
 * @opts: wqe encode options: --format, --qp, --qpn, --wqe-index, --max-sge,
 *        --max-inline, --sig-all; --max-recv-sge for a receive request.
 * @wqe:  out, @cap bytes: mlx5, the WQE's whole 64-byte blocks; rxe, the
 *        whole slot of the QP the options size; a receive request, the
 *        whole receive slot.
 * Returns the bytes written (a multiple of 64), or WQE_DPI_EARG,
 * WQE_DPI_EOPT, WQE_DPI_EREQUEST (the message says column and reason, as
 * the CLI does), WQE_DPI_ESPACE (@cap < the WQE).
 */
WQE_API int wqe_dpi_encode(const char *line, const char *opts, unsigned char *wqe, int cap,
			   unsigned char *msg, int msgcap);

/*
 * wqe_dpi_encode_fields - as wqe_dpi_encode() for a request given field by
 * field. The request is written as a text line (wqe_format_send_wr()) and
 * encoded by wqe_dpi_encode(), so both take the same path and checks.
 * @opcode:   an enum wqe_wr_opcode value (wqe/verbs.h: WRITE 0, WRITE_IMM 1,
 *            SEND 2, SEND_IMM 3, READ 4, CAS 5, FAA 6, SEND_INV 9).
 * @flags:    enum wqe_send_flags bits: FENCE 1, SIGNALED 2, SOLICITED 4;
 *            INLINE 8 is set by a non-zero @inline_len and refused here.
 * @wr_id:    the request's wr_id (an rxe WQE carries it, mlx5 does not).
 * @raddr, @rkey: WRITE, READ and atomics.
 * @imm:      *_IMM: the immediate as the wire carries it (0x01020304 is
 *            the bytes 01 02 03 04); SEND_INV: the rkey to invalidate.
 * @swap_add, @compare: CAS swap and compare; FAA the addend in @swap_add.
 * @dqpn, @qkey: UD only (the address handle is otherwise all zero: use the
 *            text form for a full UD address).
 * @num_sge:  SGEs in @sge_addr, @sge_len, @sge_lkey (0..64).
 * @inline_data, @inline_len: a payload carried in the WQE (0..4096 bytes;
 *            0: none, the SGEs are used).
 * Returns as wqe_dpi_encode(); WQE_DPI_EARG for a bad count or flag.
 */
WQE_API int wqe_dpi_encode_fields(const char *opts, int opcode, unsigned int flags,
				  unsigned long long wr_id, unsigned long long raddr,
				  unsigned int rkey, unsigned int imm, unsigned long long swap_add,
				  unsigned long long compare, unsigned int dqpn, unsigned int qkey,
				  int num_sge, const unsigned long long *sge_addr,
				  const unsigned int *sge_len, const unsigned int *sge_lkey,
				  const unsigned char *inline_data, int inline_len,
				  unsigned char *wqe, int cap, unsigned char *msg, int msgcap);

/*
 * The fields wqe_dpi_decode() reports, in this order: what the WQE bytes
 * say (struct wqe_desc of wqe/desc.h), then what the NIC does with them,
 * then three entries per SGE (address, length, lkey) from
 * WQE_DPI_D_SGE_BASE on. wqe_dpi_decode_field() names each.
 */
enum wqe_dpi_decode_field {
	WQE_DPI_D_FORMAT = 0,   /* enum wqe_format */
	WQE_DPI_D_OP,           /* enum wqe_op: SEND 0 ... ATOMIC_FETCH_AND_ADD 7 */
	WQE_DPI_D_QPN,          /* mlx5: the control segment's; rxe: --qpn */
	WQE_DPI_D_WQE_INDEX,
	WQE_DPI_D_DS,           /* mlx5: 16-byte units; rxe 0 */
	WQE_DPI_D_NBLOCKS,
	WQE_DPI_D_SIZE,         /* bytes that carry meaning */
	WQE_DPI_D_FENCE,
	WQE_DPI_D_SIGNALED,     /* the WQE's own bit */
	WQE_DPI_D_SOLICITED,
	WQE_DPI_D_INLINE,
	WQE_DPI_D_IMM,          /* immediate or invalidate rkey, read big-endian */
	WQE_DPI_D_REMOTE_ADDR,
	WQE_DPI_D_RKEY,
	WQE_DPI_D_SWAP_ADD,
	WQE_DPI_D_COMPARE,
	WQE_DPI_D_NUM_SGE,
	WQE_DPI_D_TOTAL_LEN,
	WQE_DPI_D_INLINE_LEN,
	WQE_DPI_D_UD_QKEY,
	WQE_DPI_D_UD_DQPN,
	WQE_DPI_D_UD_SPORT,
	WQE_DPI_D_UD_SL,
	WQE_DPI_D_UD_TCLASS,
	WQE_DPI_D_UD_HOP_LIMIT,
	WQE_DPI_D_UD_FLOW_LABEL,
	WQE_DPI_D_UD_DMAC,      /* 48 bits, first byte most significant */
	WQE_DPI_D_UD_DGID_HI,   /* GID bytes 0-7, big-endian */
	WQE_DPI_D_UD_DGID_LO,   /* GID bytes 8-15 */
	WQE_DPI_D_UD_AH_NUM,
	/* What the NIC does (src/engine/requester.c's processing-time checks
	 * that need no key table: opcode on the transport, message length). */
	WQE_DPI_D_STATUS,       /* enum wqe_wc_status it completes with: 0 success,
				 * LOC_QP_OP_ERR 2, LOC_LEN_ERR 1 */
	WQE_DPI_D_COMPLETES,    /* 1 if it writes a completion (signaled, --sig-all,
				 * or an error) */
	WQE_DPI_D_NPKTS,        /* request packets it sends (0 on an error) */
	WQE_DPI_D_NPSN,         /* PSNs they consume (a READ: one per response) */
	WQE_DPI_D_FIRST_OPCODE, /* wire opcode of the first packet; 256 if none */
	WQE_DPI_D_SGE_BASE,     /* then addr, length, lkey of each SGE */
};

/*
 * wqe_dpi_decode - decode WQE bytes as the NIC does and say what it does.
 * @opts:   wqe encode options: --format and --qp (the WQE does not say its
 *          transport), --qpn (rxe: the QP's number), --sig-all, and the
 *          path (--pmtu, --psn, ...) the packet count depends on.
 * @wqe, @len: the bytes (mlx5: at least the WQE; rxe: its slot).
 * @fields: out, @nfields entries (WQE_DPI_FIELDS_MAX is always enough),
 *          in enum wqe_dpi_decode_field order.
 * Returns the entries written (WQE_DPI_D_SGE_BASE + 3 x SGEs), or
 * WQE_DPI_EARG, WQE_DPI_EOPT, WQE_DPI_EWQE (the decoder's reason in
 * @msg), WQE_DPI_ESPACE (@nfields too small).
 * A WQE the NIC refuses at processing time (an opcode illegal on the
 * transport) is not an error: WQE_DPI_D_STATUS says what it completes with.
 */
WQE_API int wqe_dpi_decode(const char *opts, const unsigned char *wqe, int len,
			   unsigned long long *fields, int nfields, unsigned char *msg,
			   int msgcap);

/* The name of decode field @i ("op", "rkey", "sge_addr", ...; the SGE
 * names repeat), or "" past the last possible one. Static. */
WQE_API const char *wqe_dpi_decode_field(int i);

/*
 * wqe_dpi_packet_count - how many request packets the NIC sends for the
 * WQE @wqe (@len bytes), decoded and expanded as `wqe encode --packets
 * OPTS` expands it. @opts as for wqe_dpi_decode().
 * Returns the count (0 for a WQE the NIC completes with an error), or
 * WQE_DPI_EARG, WQE_DPI_EOPT, WQE_DPI_EWQE, WQE_DPI_ENOMEM.
 */
WQE_API int wqe_dpi_packet_count(const char *opts, const unsigned char *wqe, int len,
				 unsigned char *msg, int msgcap);

/*
 * wqe_dpi_packet - packet @index (0-based) of that expansion into @frame
 * (@cap bytes; WQE_DPI_FRAME_MAX is always enough), from its Ethernet
 * header to its ICRC. Costs one expansion up to that packet's PSN (the
 * packetizer seeks to it), so a loop over every index is linear.
 * Returns the frame's length, or as wqe_dpi_packet_count(), WQE_DPI_ERANGE
 * (@index past the last), WQE_DPI_ESPACE.
 */
WQE_API int wqe_dpi_packet(const char *opts, const unsigned char *wqe, int len, int index,
			   unsigned char *frame, int cap, unsigned char *msg, int msgcap);

/*
 * wqe_dpi_line_packets - every frame of `wqe encode --packets OPTS 'LINE'`
 * (those its --pcap writes) in one call: wqe_dpi_encode() (of a send
 * request: a receive request is WQE_DPI_EREQUEST), then the
 * expansion. @opts may hold the packet options (--pmtu, --psn, --src-ip,
 * --dst-ip, --dqpn, --sport, --smac, --dmac, --pkey, --qkey).
 * @out, @cap:      the frames, one after the other.
 * @lens, @maxpkts: each frame's length.
 * @needed:         out (may be NULL): the bytes all frames take; set also
 *                  when the result is WQE_DPI_ESPACE, so a caller can size
 *                  @out and call again.
 * Returns the number of frames, or the errors of wqe_dpi_encode(),
 * WQE_DPI_ESPACE (@cap or @maxpkts too small), WQE_DPI_ENOMEM.
 */
WQE_API int wqe_dpi_line_packets(const char *line, const char *opts, unsigned char *out,
				 int cap, int *lens, int maxpkts, int *needed,
				 unsigned char *msg, int msgcap);

/*
 * wqe_dpi_icrc - the ICRC of a RoCEv2 frame (Ethernet, an optional VLAN
 * tag, IPv4 or IPv6, UDP, BTH ... ICRC), computed over its bytes: compare
 * it with the frame's last 4 bytes read least-significant byte first.
 * @icrc: out.
 * Returns 0, or WQE_DPI_EARG, WQE_DPI_EFRAME (not a well-formed frame: the
 * parser's reason in @msg). A wrong ICRC in the frame is not an error.
 */
WQE_API int wqe_dpi_icrc(const unsigned char *frame, int len, unsigned int *icrc,
			 unsigned char *msg, int msgcap);

/* The fields wqe_dpi_parse() reports (struct wqe_pkt of wqe/wire.h). The
 * fields of a header the opcode does not carry are 0. */
enum wqe_dpi_parse_field {
	WQE_DPI_P_HAS_VLAN = 0,
	WQE_DPI_P_VLAN_TCI,
	WQE_DPI_P_DMAC,         /* 48 bits, first byte most significant */
	WQE_DPI_P_SMAC,
	WQE_DPI_P_ETHERTYPE,
	WQE_DPI_P_IPVER,        /* 4 or 6 */
	WQE_DPI_P_SRC_HI,       /* source GID bytes 0-7 (IPv4: ::ffff:a.b.c.d) */
	WQE_DPI_P_SRC_LO,       /* bytes 8-15 */
	WQE_DPI_P_DST_HI,
	WQE_DPI_P_DST_LO,
	WQE_DPI_P_TOS,
	WQE_DPI_P_TTL,
	WQE_DPI_P_FLOW_LABEL,
	WQE_DPI_P_IP_ID,
	WQE_DPI_P_IP_FLAGS,
	WQE_DPI_P_IP_LEN,
	WQE_DPI_P_IP_CSUM,
	WQE_DPI_P_IP_CSUM_OK,
	WQE_DPI_P_SPORT,
	WQE_DPI_P_DPORT,
	WQE_DPI_P_UDP_LEN,
	WQE_DPI_P_UDP_CSUM,
	WQE_DPI_P_UDP_CSUM_OK,
	WQE_DPI_P_OPCODE,
	WQE_DPI_P_SE,
	WQE_DPI_P_MIGREQ,
	WQE_DPI_P_PADCNT,
	WQE_DPI_P_TVER,
	WQE_DPI_P_PKEY,
	WQE_DPI_P_FECN,
	WQE_DPI_P_BECN,
	WQE_DPI_P_DESTQP,
	WQE_DPI_P_ACKREQ,
	WQE_DPI_P_PSN,
	WQE_DPI_P_HDRS,         /* enum wqe_hdr mask */
	WQE_DPI_P_RETH_VA,
	WQE_DPI_P_RETH_RKEY,
	WQE_DPI_P_RETH_DMA_LEN,
	WQE_DPI_P_AETH_SYNDROME,
	WQE_DPI_P_AETH_MSN,
	WQE_DPI_P_ATOMIC_VA,
	WQE_DPI_P_ATOMIC_RKEY,
	WQE_DPI_P_ATOMIC_SWAP_ADD,
	WQE_DPI_P_ATOMIC_COMPARE,
	WQE_DPI_P_ATOMICACK_ORIG,
	WQE_DPI_P_IMM,
	WQE_DPI_P_IETH_RKEY,
	WQE_DPI_P_DETH_QKEY,
	WQE_DPI_P_DETH_SRCQP,
	WQE_DPI_P_PAYLOAD_OFF,  /* offset of the payload in the frame */
	WQE_DPI_P_PAYLOAD_LEN,  /* pad excluded */
	WQE_DPI_P_ICRC,         /* the frame's ICRC bytes read little-endian */
	WQE_DPI_P_ICRC_OK,      /* 1 if it verifies */
	WQE_DPI_P_COUNT
};

/*
 * wqe_dpi_parse - parse a RoCEv2 frame (as wqe_pkt_parse()) into fields.
 * @fields: out, @nfields entries (at least WQE_DPI_P_COUNT).
 * Returns WQE_DPI_P_COUNT, or WQE_DPI_EARG, WQE_DPI_EFRAME, WQE_DPI_ESPACE.
 */
WQE_API int wqe_dpi_parse(const unsigned char *frame, int len, unsigned long long *fields,
			  int nfields, unsigned char *msg, int msgcap);

/* The name of parse field @i ("psn", "reth_va", ...), or "" past the last. */
WQE_API const char *wqe_dpi_parse_field(int i);

#ifdef __cplusplus
}
#endif

#endif /* WQE_DPI_H */
