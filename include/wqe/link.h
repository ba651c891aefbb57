/* SPDX-License-Identifier: MIT */
/*
 * wqe/link.h - where a context's packets go.
 *
 * A context sends every frame it builds to the link attached to it, and
 * copies it to its capture tap if one is set. Links:
 *   - the sink: keeps every frame it is given, in order, for tests and for
 *     the pure-model tools; nothing is delivered anywhere;
 *   - the loopback: an in-process Ethernet segment; a frame goes to the
 *     attached context whose MAC is its destination MAC, into a queue that
 *     context takes from when it makes progress;
 *   - the fault injector: wraps another link and, from a seed, drops,
 *     duplicates, reorders, delays and corrupts frames sent through it;
 *   - the UDP link: a UDP socket bound to a local address, port 4791; the
 *     context's RoCEv2 packets go to other processes or hosts (another
 *     wqe context, or any RoCEv2 endpoint that sends what it expects),
 *     and what arrives there comes in as whole Ethernet frames.
 *
 * Threading: a link is used by the contexts attached to it, from one thread
 * at a time, with two exceptions for contexts whose NIC runs on a thread of
 * its own (WQE_NIC_THREAD): a loopback that such a context attached to
 * first locks every operation, so several NIC threads (and caller-mode
 * contexts that join it later) may use it at once; and wqe_link_stats()
 * may be called from any thread on a link a NIC thread uses.
 */
#ifndef WQE_LINK_H
#define WQE_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "wqe/trace.h"
#include "wqe/types.h"
#include "wqe/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wqe_link;

/*
 * wqe_link_sink_create - a link that records up to @max_frames frames
 * (1 to 1<<20). Once full, later frames are counted as dropped.
 * Returns NULL with errno EINVAL or ENOMEM.
 */
WQE_API struct wqe_link *wqe_link_sink_create(uint32_t max_frames);

/* Frames recorded by a sink (0 for another kind of link). */
WQE_API size_t wqe_link_sink_count(const struct wqe_link *l);
/* Frames a full sink could not record. */
WQE_API uint64_t wqe_link_sink_dropped(const struct wqe_link *l);

/*
 * wqe_link_sink_frame - frame @i (0 = oldest) of a sink. The pointer stays
 * valid until the sink is cleared or destroyed. Returns 0, or EINVAL if
 * @i is out of range or @l is not a sink.
 */
WQE_API int wqe_link_sink_frame(const struct wqe_link *l, size_t i, const uint8_t **frame,
				size_t *len);

/* Forgets every recorded frame. */
WQE_API void wqe_link_sink_clear(struct wqe_link *l);

/*
 * wqe_link_loopback_create - an in-process segment joining up to 16
 * contexts. Each attached context has a queue of 4096 frames; a frame for a
 * full queue, or for a MAC no attached context has, is dropped and counted.
 * Returns NULL with errno ENOMEM.
 */
WQE_API struct wqe_link *wqe_link_loopback_create(void);

/* Fault rates: probabilities in [0, 1] applied to every frame sent. */
struct wqe_fault_cfg {
	double drop;
	double duplicate;
	double reorder;      /* held back behind the next frame */
	double delay;        /* held back behind the next delay_frames frames */
	double corrupt;      /* one bit flipped at a random place */
	uint32_t delay_frames; /* 0 means 8 */
	uint64_t seed;       /* same seed, same faults for the same frames */
};

/*
 * wqe_link_fault_create - wrap @inner (a loopback or a UDP link) in a
 * fault injector. Contexts attach to the returned link (as many as @inner
 * takes: one for a UDP link); the faults apply to the frames they send,
 * before @inner carries them. A held frame (reorder, delay) is released at
 * the latest when a receiver finds nothing else waiting, so a fault never
 * stalls an exchange; the injector holds at most 64 frames. Over a UDP
 * link the frames it passes on leave in that link's batches, when they
 * would without the injector. @inner cannot be destroyed while the
 * injector has contexts attached. Returns NULL with errno EINVAL (rates
 * outside [0, 1], @inner neither a loopback nor a UDP link) or ENOMEM.
 */
WQE_API struct wqe_link *wqe_link_fault_create(struct wqe_link *inner,
					       const struct wqe_fault_cfg *cfg);

/*
 * How a UDP link knows the IPv4 header an arriving datagram had. The ICRC
 * covers the identification and DF bit of that header, and a UDP socket
 * does not show them; senders differ in what they write (Linux's rxe and
 * most NICs a counter, wqe's own UDP link 0 with DF). IPv6 has no such
 * field: the link needs none of this there.
 */
enum wqe_udp_ipv4_rx {
	/* RAW where the process may open a raw socket (CAP_NET_RAW), else
	 * SEARCH: the default, so that any peer works with no option. */
	WQE_UDP_IPV4_AUTO = 0,
	/* Receive each datagram with its IP header through a raw IPv4 socket
	 * (the UDP socket still holds the port): the ICRC is checked on all
	 * its 32 bits over the header as it arrived. Needs CAP_NET_RAW. */
	WQE_UDP_IPV4_RAW,
	/* Find the identification and DF from the ICRC
	 * (wqe_icrc_find_ipv4_id()): any sender works, and the check keeps
	 * 15 of the ICRC's 32 bits (17 are spent finding the two fields). */
	WQE_UDP_IPV4_SEARCH,
	/* Take them to be 0 and DF (what wqe's UDP link writes): a sender
	 * that writes others fails the ICRC check. The cheapest. */
	WQE_UDP_IPV4_ASSUME,
};

/* Where a UDP link binds (wqe_link_udp_create()). */
struct wqe_udp_cfg {
	const char *local; /* an IPv4 or IPv6 address literal of this host */
	uint32_t rcvbuf;   /* socket receive buffer to ask for; 0 means 4 MiB */
	uint32_t sndbuf;   /* socket send buffer to ask for; 0 means 4 MiB */
	int ipv4_rx;       /* enum wqe_udp_ipv4_rx; ignored for IPv6 */
};

/*
 * wqe_link_udp_create - a link that is a UDP socket bound to @cfg->local,
 * port 4791 (WQE_ROCEV2_PORT), non-blocking. One context attaches to it
 * (another gets EBUSY from wqe_context_attach_link()); its GID (the one its
 * address vectors use as source, normally index 0) should be @cfg->local
 * (::ffff:a.b.c.d for IPv4), since that is the source address the kernel
 * puts on every packet and the one peers check. wqe_link_destroy() closes
 * the sockets.
 *
 * Sending: the context hands over a whole frame; the link sends its UDP
 * payload (BTH to ICRC) to the destination address of the frame's IP
 * header, port 4791, from the frame's UDP source port (the per-QP port a
 * NIC puts there for flow entropy: rxe's 0xc000 plus a hash of the QP
 * number), with the frame's TOS/traffic class and TTL/hop limit (the
 * socket's own are TOS 0 and the system's default TTL; others go as
 * ancillary data). A source port other than 4791 is sent from a socket of
 * its own, bound to @cfg->local and that port when first used, which
 * takes no datagrams in (a filter drops them); up to 64 such ports per
 * link. A frame whose port has none (all 64 taken: counted in
 * tx_sport_shared) goes from another QP's port; one whose port cannot be
 * bound (another program holds it: tx_sport_fallback) from 4791.
 * The kernel writes the IP and UDP headers, so the link recomputes the
 * ICRC over the headers the kernel sends: source @cfg->local, the source
 * port used, and for IPv4 identification 0 with DF set (the sockets have
 * IP_MTU_DISCOVER = IP_PMTUDISC_DO; Linux then sends identification 0 from
 * an unconnected socket). A frame whose ICRC does not match its own
 * headers and payload (damaged on the way, e.g. by a fault injector
 * wrapping this link) keeps its error: the new ICRC is the one the
 * undamaged frame would have had, so the receiver drops it as on any other
 * link (the check costs a CRC of the frame, so it is made only for frames
 * that came through a fault link: the NIC's own are as it built them). A
 * frame that is not IPv4/IPv6 UDP to port 4791, or of the other
 * address family than the socket's, is dropped and counted in
 * no_destination; a full socket buffer (EAGAIN, ENOBUFS) in queue_full;
 * any other send error (EMSGSIZE over the path MTU, EHOSTUNREACH, ...) in
 * tx_errors. RC recovers from all of them by retransmitting.
 *
 * Batching: the link queues the datagrams and sends them, in order, with
 * one sendmmsg() per run of datagrams from one source port when 64 are
 * queued and when the call that made the NIC send ends: wqe_progress(),
 * wqe_poll_cq() (which runs the NIC), wqe_context_receive(),
 * wqe_context_attach_link() (what the old link holds leaves before the
 * context does), wqe_link_destroy(). So once any of them returns nothing
 * waits in the link, and wqe_link_stats() counts every datagram. Each
 * datagram of a batch has the outcome it would have had sent alone: one
 * the kernel refuses is counted as above and dropped, the ones after it
 * still go; none is sent twice. The capture tap and the port's counters
 * see a frame when the NIC sends it, as on any link.
 *
 * Receiving: one recvmmsg() reads up to 64 datagrams, handed to the
 * context one at a time; the next recvmmsg() comes only when they are all
 * taken, and a context that found nothing waiting has left nothing in the
 * link, so polling wqe_link_udp_fd() is enough to know when to progress.
 * Each datagram becomes the frame a NIC would have seen (Ethernet to the
 * attached context's MAC, from a locally administered MAC made from the
 * sender's address; the IP and UDP headers as below) and goes through the
 * context's normal receive path: parse, ICRC check, filters, capture tap.
 * A datagram longer than the largest frame (4416 bytes with its headers)
 * is dropped and counted in rx_truncated, one shorter than a BTH and an
 * ICRC in rx_short. The link allocates nothing per datagram: its buffers
 * (64 frames each way, about 560 KiB) come with it.
 *
 * The IP header of an arriving datagram, by @cfg->ipv4_rx (enum
 * wqe_udp_ipv4_rx; the default finds the best the process may use, and
 * wqe_link_udp_ipv4_rx() says which it got):
 *   - RAW: the datagrams are read from a raw IPv4 socket bound to
 *     @cfg->local and filtered to UDP port 4791, with the header they
 *     arrived with (counted in rx_ipv4_raw), and the UDP socket, which
 *     still holds the port, takes none. The UDP checksum is not checked
 *     (the kernel's UDP layer, which would, is bypassed): the frame gets
 *     checksum 0, and the ICRC, checked on all 32 bits, covers every byte
 *     the checksum does. A datagram with IP options or not a whole UDP
 *     datagram to @cfg->local port 4791 is dropped (rx_malformed).
 *   - SEARCH and ASSUME: the header is rebuilt from the sender's address,
 *     the TOS and TTL the socket reports, @cfg->local, identification 0
 *     and DF; then SEARCH finds the identification and DF the sender's
 *     ICRC covers (counted in rx_ipv4_searched, and in rx_ipv4_id_found
 *     where they are not 0 and DF), ASSUME keeps them (rx_ipv4_assumed).
 *     A datagram no identification explains keeps 0 and DF and fails the
 *     NIC's ICRC check (a bad-ICRC drop of the context).
 *   - IPv6 has no identification, and the fields a router changes are
 *     masked: the rebuilt header is the one that arrived, and the ICRC is
 *     checked on all its bits. A datagram with UDP checksum 0, which rxe
 *     sends over IPv6 as over IPv4, is taken (UDP_NO_CHECK6_RX).
 * What this link sends verifies at any receiver that checks the ICRC over
 * the headers it received. No VLAN tags, no IPv4 options, no IPv6
 * extension headers, no link-local IPv6 addresses (no scope). Addresses
 * 0.0.0.0 and :: are refused.
 *
 * @cfg->rcvbuf and @cfg->sndbuf are asked for with SO_RCVBUFFORCE /
 * SO_SNDBUFFORCE (allowed with CAP_NET_ADMIN), else SO_RCVBUF / SO_SNDBUF,
 * which the kernel caps at net.core.rmem_max / wmem_max; a receive buffer
 * that overflows drops datagrams (counted in rx_kernel_drops).
 *
 * Returns the link, or NULL with errno: EINVAL (NULL @cfg or address, not
 * an address literal, a wildcard address, an @cfg->ipv4_rx out of the
 * enum), EADDRINUSE (port 4791 of that address is taken: another link, or
 * the kernel's rdma_rxe, which holds it on every address), EADDRNOTAVAIL
 * (not an address of this host), EPERM (WQE_UDP_IPV4_RAW without
 * CAP_NET_RAW), ENOMEM, or what socket() returns (EMFILE, ...). Nothing is
 * left open on failure.
 *
 * Threading: as every link, one thread at a time; the sockets are the
 * link's own.
 */
WQE_API struct wqe_link *wqe_link_udp_create(const struct wqe_udp_cfg *cfg);

/*
 * wqe_link_udp_fd - the socket the UDP link receives on (the raw one when
 * it reads IPv4 headers itself), for poll()/epoll: a program that has
 * nothing to do sleeps until it is readable or its context's next timer
 * (wqe_context_next_deadline()) is due, then calls wqe_progress(). (With
 * WQE_NIC_THREAD the NIC thread polls it; the program need not.) Only poll
 * it: reading from it would take datagrams from the link. Returns the
 * descriptor, or -1 with errno EINVAL if @l is not a UDP link.
 */
WQE_API int wqe_link_udp_fd(const struct wqe_link *l);

/*
 * wqe_link_udp_ipv4_rx - how the UDP link @l learns arriving IPv4
 * headers: WQE_UDP_IPV4_RAW, _SEARCH or _ASSUME (what WQE_UDP_IPV4_AUTO
 * became), or -1 with errno EINVAL if @l is not a UDP link or is IPv6.
 */
WQE_API int wqe_link_udp_ipv4_rx(const struct wqe_link *l);

/* The name of a wqe_udp_ipv4_rx value ("auto", "raw", "search",
 * "assume"), or NULL; wqe_udp_ipv4_rx_parse() the other way: the value, or
 * -1 for any other string. */
WQE_API const char *wqe_udp_ipv4_rx_str(int mode);
WQE_API int wqe_udp_ipv4_rx_parse(const char *s);

/*
 * wqe_udp_route_hop_limit - the hop limit the system's routing gives a
 * datagram to @dst (an IPv4-mapped or IPv6 GID), as the kernel's RoCE
 * address resolution puts into an address vector's GRH in place of the
 * one a program asked for: the route's hop limit for IPv6, the default
 * TTL (net.ipv4.ip_default_ttl) for IPv4. Returns 1 to 255, or -1 with
 * errno (EINVAL: NULL @dst; ENETUNREACH and others: no route).
 * Thread-safe; opens and closes a socket.
 */
WQE_API int wqe_udp_route_hop_limit(const union wqe_gid *dst);

/* What a link did with the frames it was given. */
struct wqe_link_stats {
	uint64_t frames;        /* frames sent into the link */
	uint64_t delivered;     /* frames queued for a destination (UDP: sent) */
	uint64_t no_destination; /* UDP: not IPv4/IPv6 UDP to 4791, other family */
	uint64_t queue_full;    /* UDP: the socket's send buffer was full */
	uint64_t dropped;       /* fault injector */
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t delayed;
	uint64_t corrupted;
	/* UDP link only (0 on the others) */
	uint64_t tx_errors;       /* send failures other than a full buffer */
	uint64_t rx_datagrams;    /* datagrams read from the socket */
	uint64_t rx_frames;       /* of them, handed to the context as frames */
	uint64_t rx_truncated;    /* too long for a frame: dropped */
	uint64_t rx_short;        /* shorter than BTH + ICRC: dropped */
	uint64_t rx_errors;       /* receive failures other than EAGAIN */
	uint64_t rx_kernel_drops; /* dropped by the kernel, receive buffer full
				   * (SO_RXQ_OVFL; the latest count it gave) */
	uint64_t rx_malformed;    /* raw IPv4: not a whole UDP datagram without
				   * IP options to the link's address */
	/* IPv4 frames, by how their header is known (wqe_udp_ipv4_rx) */
	uint64_t rx_ipv4_raw;      /* as it arrived (raw socket) */
	uint64_t rx_ipv4_searched; /* identification and DF found from the ICRC */
	uint64_t rx_ipv4_id_found; /* of those, other than 0 and DF */
	uint64_t rx_ipv4_assumed;  /* taken to be 0 and DF */
	/* source ports (wqe_link_udp_create()) */
	uint64_t tx_sport_shared;   /* sent from another QP's port: 64 in use */
	uint64_t tx_sport_fallback; /* sent from 4791: the port could not be bound */
};

/* Copies @l's counters. Returns 0 or EINVAL. (A UDP link's send counters
 * are those of the datagrams the kernel was given: none is left queued when
 * a call that sends returns; see wqe_link_udp_create().) */
WQE_API int wqe_link_stats(const struct wqe_link *l, struct wqe_link_stats *s);

/* Frees @l; EBUSY while a context is attached. 0 or EINVAL otherwise. */
WQE_API int wqe_link_destroy(struct wqe_link *l);

/*
 * wqe_context_attach_link - send @ctx's packets to @l (NULL detaches).
 * Returns 0, EINVAL (NULL @ctx), EBUSY (@l is a UDP link another context
 * is attached to), ENOMEM (no memory, or all 16 ports of a loopback
 * taken) or, for a context with WQE_NIC_THREAD, ENOTSUP: @l is a link its
 * NIC thread cannot sleep on (a sink, a fault injector around a loopback),
 * or a loopback that caller-mode contexts already use. On an error the
 * context keeps the link it had.
 */
WQE_API int wqe_context_attach_link(struct wqe_context *ctx, struct wqe_link *l);

/*
 * wqe_context_receive - hand one frame to @ctx's port as if it had arrived
 * from the wire (tests, fuzzers, a user's own transport). It is parsed,
 * its ICRC checked and filtered at once; responses it causes are sent to
 * the attached link (a batching one, UDP, sends them before the call
 * returns). Returns 0, or EINVAL for NULL arguments or a frame
 * longer than 65535 bytes. A dropped frame is not an error: it is counted.
 */
WQE_API int wqe_context_receive(struct wqe_context *ctx, const uint8_t *frame, size_t len);

/*
 * wqe_context_set_clock - the clock the context's timers (retransmit, RNR)
 * and capture timestamps use: @now returns nanoseconds. NULL restores
 * CLOCK_MONOTONIC. A simulator passes its own time here. Returns 0 or EINVAL.
 */
WQE_API int wqe_context_set_clock(struct wqe_context *ctx, uint64_t (*now)(void *arg),
				  void *arg);

/*
 * wqe_context_next_deadline - the earliest armed timer of @ctx's NIC (a
 * retransmit timeout or an RNR wait), on its clock, in *@ns. A simulator
 * with its own clock (wqe_context_set_clock()) that finds nothing left to
 * do jumps its time there. Returns 1 if a timer is armed, 0 if none,
 * -EINVAL for NULL arguments.
 */
WQE_API int wqe_context_next_deadline(struct wqe_context *ctx, uint64_t *ns);

/* Why a context's port dropped a frame that reached it, before any QP saw
 * it (IBTA 9.6 receive checks, rxe_recv.c). */
enum wqe_rx_drop {
	WQE_RX_DROP_NOT_ROCE = 0, /* not a RoCEv2 frame (not UDP to 4791, ...) */
	WQE_RX_DROP_MALFORMED,    /* RoCEv2 but malformed (lengths, opcode, pad) */
	WQE_RX_DROP_BAD_ICRC,
	WQE_RX_DROP_BAD_CSUM,     /* IPv4 header or UDP checksum wrong */
	WQE_RX_DROP_BAD_TVER,     /* BTH transport version not 0 */
	WQE_RX_DROP_NOT_FOR_US,   /* destination GID not this port's */
	WQE_RX_DROP_UNKNOWN_QP,   /* no such QP (QPN 0; 1 without a GSI QP) */
	WQE_RX_DROP_QP_STATE,     /* QP not in RTR, RTS, SQD or SQE */
	WQE_RX_DROP_TRANSPORT,    /* opcode of another transport than the QP's */
	WQE_RX_DROP_PKEY,         /* P_Key not the QP's (GSI QP: not the port's) */
	WQE_RX_DROP_QKEY,         /* UD Q_Key not the QP's */
	WQE_RX_DROP_SRC,          /* RC/UC: source address not the QP's peer */
	WQE_RX_DROP_COUNT
};

/* The reason's name ("bad ICRC", ...); "unknown" for a value out of range. */
WQE_API const char *wqe_rx_drop_str(enum wqe_rx_drop d);

/* What a context's port did: frames sent, frames that reached it and
 * what became of them. */
struct wqe_port_stats {
	uint64_t tx_frames;      /* frames the NIC sent (requests and responses) */
	uint64_t rx_frames;      /* frames that reached the port (from the link
				  * or wqe_context_receive()) */
	uint64_t rx_accepted;    /* of them, past the receive checks, to a QP */
	uint64_t rx_drops[WQE_RX_DROP_COUNT]; /* the others, by reason */
	uint64_t progress_calls; /* wqe_progress() and the polls that ran it */
};

/*
 * wqe_context_port_stats - copy @ctx's port counters into *@s. They count
 * from the context's creation; rx_frames = rx_accepted + the sum of
 * rx_drops. Returns 0, or EINVAL for NULL arguments. Threading: as any call
 * on @ctx.
 */
WQE_API int wqe_context_port_stats(struct wqe_context *ctx, struct wqe_port_stats *s);

/*
 * wqe_context_set_pcap - record every frame @ctx sends or receives in the
 * pcap file @path (created or truncated; flushed after every frame, so an
 * interrupted run leaves a readable file). NULL stops recording and closes
 * the file. Returns 0, or an errno value (nothing changes then).
 */
WQE_API int wqe_context_set_pcap(struct wqe_context *ctx, const char *path);

/*
 * Per-QP counters kept by the engine.
 * Requester: what each WQE cost in host-memory transactions (the WQE fetch
 * in 64-byte blocks, one payload read per non-empty SGE; none for inline
 * payload), what it became, stalls, errors, retries.
 * Responder: what arrived and what was answered.
 */
struct wqe_qp_stats {
	uint64_t wqes_fetched;
	uint64_t wqe_fetch_blocks;
	uint64_t payload_reads;
	uint64_t payload_bytes;
	uint64_t inline_wqes;
	uint64_t fence_stalls;     /* a FENCE WQE waited for READs/atomics */
	uint64_t rd_atomic_stalls; /* a READ/atomic waited for max_rd_atomic */
	uint64_t packets_sent;     /* request packets, retransmissions included */
	uint64_t bytes_sent;
	uint64_t packets_received; /* packets that passed the receive filters */
	uint64_t wqe_errors;       /* WQEs completed with an error (not flush) */
	uint64_t flushed;
	uint64_t retransmits;      /* go-back-N sequences started */
	uint64_t timeouts;         /* retransmit timer expiries */
	uint64_t rnr_naks_received;
	uint64_t seq_naks_received;
	/* responder */
	uint64_t requests_received;
	uint64_t acks_sent;
	uint64_t naks_sent;        /* NAK PSN sequence, invalid request, access, op */
	uint64_t rnr_naks_sent;
	uint64_t read_responses_sent;
	uint64_t atomic_acks_sent;
	uint64_t duplicates;       /* requests behind the expected PSN */
	uint64_t out_of_sequence;  /* requests ahead of it */
	uint64_t bytes_placed;
	uint64_t messages_received;
	uint64_t responder_drops;  /* requests dropped by the responder, any reason */
};

/* Copies @qp's counters. Returns 0 or EINVAL. */
WQE_API int wqe_query_qp_stats(struct wqe_qp *qp, struct wqe_qp_stats *stats);

/*
 * wqe_context_set_trace - call @fn with every engine event of @ctx
 * (wqe/trace.h); NULL stops. Returns 0 or EINVAL. With WQE_NIC_THREAD, @fn
 * runs in the NIC thread, or in a thread in wqe_poll_cq() that found the
 * CQ empty and the NIC thread asleep and ran the NIC's pass itself, with
 * the context's command lock held: it must
 * not call into the context, and what it writes the application reads
 * only after a command (any statistics query orders the two). The same
 * holds for a clock set with wqe_context_set_clock().
 */
WQE_API int wqe_context_set_trace(struct wqe_context *ctx, wqe_trace_fn fn, void *arg);

/*
 * What the driver knows of a QP's send ring (the twin of mlx5dv_init_obj
 * for a QP): where the ring is, its size, and the producer counter. A tool
 * reads the WQE a request became at blocks [pi before the post, pi after).
 */
struct wqe_qp_dv {
	const uint8_t *sq_buf;
	uint32_t sq_nblocks;  /* 64-byte blocks, a power of two */
	uint32_t sq_pi;       /* producer counter, free-running, in blocks */
	uint32_t sq_ci;       /* blocks the engine has retired */
	uint32_t max_wqe_bytes;
	enum wqe_format format;
};
/* Fills @dv. Returns 0 or EINVAL. */
WQE_API int wqe_qp_dv_query(const struct wqe_qp *qp, struct wqe_qp_dv *dv);

/*
 * wqe_progress - let the context's NIC run: take doorbells, fetch and
 * process WQEs, send packets, write completions. wqe_poll_cq() calls it
 * too. A link that batches (UDP) sends what this call gave it before the
 * call returns. Returns the number of WQEs and packets handled (0: nothing
 * to do), or -EINVAL. With WQE_NIC_THREAD it does nothing and returns 0:
 * the context's NIC thread does all of this on its own (so does
 * wqe_poll_cq(), which then only reads the CQ).
 */
WQE_API int wqe_progress(struct wqe_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* WQE_LINK_H */
