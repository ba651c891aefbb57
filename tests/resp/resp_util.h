/* SPDX-License-Identifier: MIT */
/*
 * resp_util.h - a responder QP under test: a context whose link is a sink,
 * one QP brought to RTS by test_qp_to_rts() (peer ::ffff:192.0.2.2, us
 * ::ffff:192.0.2.1, rq_psn 0x100), request frames built by hand
 * (wqe_pkt_build) or by the packetizer, fed with wqe_context_receive(),
 * and the responses read back from the sink with wqe_pkt_parse().
 */
#ifndef WQE_TEST_RESP_UTIL_H
#define WQE_TEST_RESP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/responder.h"
#include "verbs/verbs_int.h"
#include "wqe/desc.h"
#include "wqe/link.h"
#include "wqe/packetize.h"
#include "wqe/verbs.h"
#include "wqe/wire.h"

#define RT_PEER_QPN 0x4242u
#define RT_FIRST_PSN 0x100u
#define RT_QKEY 0x11111111u

struct rt {
	struct wqe_context *ctx;
	struct wqe_pd *pd;
	struct wqe_pd *pd2;
	struct wqe_cq *cq;
	struct wqe_link *sink;
	struct wqe_qp *qp;
	enum wqe_qp_type type;
	enum wqe_mtu mtu;
	uint16_t ip_id;
	bool v6; /* rt_open_v6(): IPv6 addresses */
};

/* Opens a context (default attributes unless @attr), a sink, two PDs, a
 * CQ and one QP at RTS with @max_recv_sge and @max_recv_wr, expecting
 * @rq_psn first (RC/UC). */
void rt_open_attr(struct rt *t, const struct wqe_context_attr *attr, enum wqe_qp_type type,
		  enum wqe_mtu mtu, uint32_t max_recv_sge, uint32_t max_recv_wr, uint32_t rq_psn);
void rt_open(struct rt *t, enum wqe_qp_type type, enum wqe_mtu mtu);
/* rt_open() over IPv6: the context's GID is 2001:db8::RT_V6_OWN, the
 * peer's 2001:db8::RT_V6_PEER (test_gid_v6()), and rt_req() builds IPv6
 * packets. */
void rt_open_v6(struct rt *t, enum wqe_qp_type type, enum wqe_mtu mtu);
#define RT_V6_OWN 0x01u
#define RT_V6_PEER 0x02u
/* rt_open() (IPv4) or rt_open_v6() (@v6) with receive WQEs in @fmt. */
void rt_open_format(struct rt *t, enum wqe_qp_type type, enum wqe_mtu mtu, enum wqe_format fmt,
		    bool v6);
/* The QP to RESET and back to @last (INIT, RTR or RTS), connected as
 * rt_open() or rt_open_v6() connected it. */
void rt_reconnect(struct rt *t, enum wqe_qp_state last);
void rt_close(struct rt *t);

/* The NIC-side state of the QP. */
struct eng_resp *rt_resp(struct rt *t);
struct qpc *rt_qpc(struct rt *t);
uint32_t rt_mtu_bytes(const struct rt *t);

/* A request packet from the peer with @opcode and @psn: addresses (IPv4,
 * or IPv6 after rt_open_v6()), P_Key
 * 0xffff, destqp = our QP, UD: DETH (Q_Key, source QP RT_PEER_QPN). */
void rt_req(const struct rt *t, struct wqe_pkt *p, uint8_t opcode, uint32_t psn);
/* Builds @p with @len payload bytes and feeds it to the NIC. */
void rt_feed(struct rt *t, const struct wqe_pkt *p, const void *payload, uint32_t len);
/* Feeds a raw frame. */
void rt_feed_raw(struct rt *t, const uint8_t *frame, size_t len);

/*
 * Expands a whole message through the packetizer and feeds every packet
 * (or only those whose index has its bit clear in @skip_mask). @d is
 * filled by the caller (op, remote_addr, rkey, imm, swap_add, compare,
 * total_len); @payload may be NULL for READ/atomics. Returns the number of
 * PSNs the message takes.
 */
uint32_t rt_msg(struct rt *t, struct wqe_desc *d, const uint8_t *payload, uint32_t psn,
		uint64_t skip_mask);

/* Responses sent so far, parsed (ICRC, checksums, addressing checked). */
size_t rt_nresp(const struct rt *t);
void rt_get(const struct rt *t, size_t i, struct wqe_pkt *out);
void rt_clear(struct rt *t);

/* Checks response @i is an ACKNOWLEDGE with @syndrome, @psn and @msn. */
void rt_check_ack(const struct rt *t, size_t i, uint8_t syndrome, uint32_t psn, uint32_t msn);

/* Posts one receive WQE of @nsge pieces of @mr. */
void rt_post_recv(struct rt *t, uint64_t wr_id, const struct wqe_sge *sg, int nsge);
/* Polls the receive CQ (which is also the send CQ); returns the count. */
int rt_poll(struct rt *t, struct wqe_wc *wc, int max);

/* Registers @len bytes at @buf with @access in @pd. */
struct wqe_mr *rt_reg(struct wqe_pd *pd, void *buf, size_t len, unsigned access);

#define RT_ALL_ACCESS                                                                       \
	(WQE_ACCESS_LOCAL_WRITE | WQE_ACCESS_REMOTE_WRITE | WQE_ACCESS_REMOTE_READ |         \
	 WQE_ACCESS_REMOTE_ATOMIC)

/* Every byte of @buf[0..size) outside [off, off+len) equals @canary. */
size_t rt_canary_bad(const uint8_t *buf, size_t size, size_t off, size_t len, uint8_t canary);

#endif
