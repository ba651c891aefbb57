/* SPDX-License-Identifier: MIT */
/*
 * responder.h - the receive side of a QP: request packets in, data placed,
 * receive WQEs consumed, ACK/NAK/READ response/atomic ACK out.
 *
 * The responder sees what a NIC sees: the request packet, the QP context,
 * the receive ring up to its doorbell record, the key table and host memory
 * reached through a key. Its state machine follows IBTA chapter 9.7 as
 * Linux rxe (rxe_resp.c) implements it; where we differ, responder.c says
 * why.
 * Its state (struct eng_resp) is in engine/resp_state.h, which nic.h
 * embeds in every QP's engine state.
 */
#ifndef WQE_ENGINE_RESPONDER_H
#define WQE_ENGINE_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/services.h"

struct wqe_pkt;

/* Makes room for @n READ/atomic replay slots (at most RESP_MAX_RD_ATOMIC)
 * before max_dest_rd_atomic becomes @n; slots are never given back until
 * resp_destroy(). 0, or ENOMEM with nothing changed. */
int resp_res_reserve(struct eng_resp *r, uint32_t n);

/* Frees what resp_res_reserve() allocated. */
void resp_destroy(struct eng_resp *r);

/* The QP's attributes may have changed (modify_qp): forget the ACK
 * template built from its path. */
void resp_modified(struct qpc *q);

/* The QP enters RTR: start expecting rq_psn, MSN 0, no resources. */
void resp_start(struct nic *n, struct qpc *q);

/* One request packet for @q that passed the receive filters. */
void resp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p);

/*
 * An RDMA WRITE ONLY for @q that passed the receive filters, as
 * resp_rx() would take it on its commonest path (in sequence, no message
 * open, the QP past RTR with REMOTE_WRITE, the length within the MTU and
 * the RETH, the rkey good): the data placed, the same state and counters
 * as resp_rx() leaves. Returns false, with nothing changed, for any other
 * case: resp_rx() then takes the packet. The receive fast path's.
 *
 * resp_write_imm(): the same for an RDMA WRITE ONLY with immediate, which
 * besides takes the receive WQE at the consumer counter (none held, one
 * posted that decodes; none posted is left to resp_rx(): RNR) and
 * completes it: RECV_RDMA_WITH_IMM, byte_len the RETH length, @imm with
 * its flag, solicited if @se. One of length 0 names no memory: no rkey is
 * checked. A CQ overrun is taken as resp_rx() takes it (the QP goes to
 * ERR). resp_write_only() reads neither @se nor @imm.
 *
 * resp_write_first(), resp_write_middle(), resp_write_last(): the same for
 * the packets of a longer RDMA WRITE with no immediate (UC not dropping a
 * message either). FIRST: no message open, exactly one MTU of payload,
 * less than the RETH length (at most 2^31), the rkey good for the whole
 * RETH range; the WRITE is then open. MIDDLE: the WRITE open, exactly one
 * MTU, less than what remains of it; LAST: the WRITE open, what remains of
 * it (1 to MTU bytes), which closes and counts the message. MIDDLE and
 * LAST check the rkey again for their own bytes and read only @psn,
 * @ackreq, @payload and @len; none reads @se or @imm.
 */
struct resp_write_pkt {
	uint32_t psn;
	bool ackreq;
	bool se; /* resp_write_imm() */
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
	uint32_t imm; /* resp_write_imm(): ImmDt, read big-endian */
	const uint8_t *payload;
	uint32_t len;
};
bool resp_write_only(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_imm(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_first(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_middle(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);
bool resp_write_last(struct nic *n, struct qpc *q, const struct resp_write_pkt *w);

/*
 * A SEND ONLY (no immediate, no invalidate) for an RC or UC @q that passed
 * the receive filters, as resp_rx() would take it on its commonest path
 * (in sequence, no message open, no receive WQE held, the QP past RTR, UC
 * not dropping a message, the payload within the MTU, a receive WQE posted
 * that decodes and whose SGEs take the payload): the payload placed, the
 * RECV completion written (solicited if @se), the WQE retired, the same
 * state and counters as resp_rx() leaves, the ACK owed if @ackreq (RC).
 * A CQ overrun is taken as resp_rx() takes it (the QP goes to ERR).
 * Returns false, with nothing changed, for any other case: resp_rx() then
 * takes the packet. The receive fast path's.
 *
 * resp_send_imm(): the same for a SEND ONLY with immediate, whose
 * completion carries @imm with its flag. resp_send_only() does not read
 * @imm.
 *
 * resp_send_first(), resp_send_middle(), resp_send_last(),
 * resp_send_last_imm(): the same for the packets of a longer SEND (no
 * invalidate; UC not dropping a message either). FIRST: no message open
 * and no receive WQE held, exactly one MTU of payload, a receive WQE
 * posted that decodes and whose SGEs take it from their start; the WQE is
 * then held and the SEND open. MIDDLE: the SEND open, exactly one MTU,
 * which the held WQE's SGEs take from where the bytes before it ended
 * (the slot decoded again). LAST (with immediate: resp_send_last_imm()):
 * the SEND open, 1 to MTU bytes, taken likewise; the message is then
 * closed and counted and the WQE completed as by a SEND ONLY, byte_len
 * the whole message's bytes, solicited if @se. FIRST and MIDDLE read
 * neither @se nor @imm, resp_send_last() not @imm.
 */
struct resp_send_pkt {
	uint32_t psn;
	bool ackreq;
	bool se;
	uint32_t imm; /* with immediate: ImmDt, read big-endian */
	const uint8_t *payload;
	uint32_t len;
};
bool resp_send_only(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_imm(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_first(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_middle(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_last(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);
bool resp_send_last_imm(struct nic *n, struct qpc *q, const struct resp_send_pkt *s);

/* Sends the ACK every QP of @n still owes (coalesced acknowledgement): once
 * the frames that arrived together have been taken, before control returns
 * to the application. */
void resp_ack_flush(struct nic *n);

#endif
