/* SPDX-License-Identifier: MIT */
/*
 * agent_int.h - the CM agent's insides (wqe/cm.h has its contract).
 *
 * IDs live in one table allocated at creation: a free slot has in_use 0.
 * An ID the consumer destroyed while it still has a protocol duty (waiting
 * out TIMEWAIT) stays in the table with detached 1: it reports nothing and
 * its slot is freed when the duty is over. Each ID has at most one timer
 * (deadline_ns, 0 = none): the wait for an answer to the message in
 * mad[] (resent up to retries_left times), or the end of TIMEWAIT.
 */
#ifndef WQE_CM_AGENT_INT_H
#define WQE_CM_AGENT_INT_H

#include <stdint.h>

#include "wqe/cm.h"

struct wqe_cm_id {
	struct wqe_cm_agent *agent;
	uint8_t in_use;
	uint8_t detached;
	uint8_t active; /* we sent the REQ (or SIDR_REQ) */
	uint8_t manual_rtu;
	enum wqe_cm_state state;
	uint32_t gen; /* bumped at every (re)use of the slot */
	void *context;
	struct wqe_cm_id *listener; /* passive: the LISTEN ID it came from */

	uint32_t local_id, remote_id;
	uint64_t tid;
	uint64_t service_id;
	struct wqe_cm_addr peer;
	uint32_t backlog; /* LISTEN: the bound on its REQ_RCVD IDs */
	uint32_t pending; /* LISTEN: its IDs in REQ_RCVD/MRA_REQ_SENT */

	/* What the exchange agreed (for wqe_cm_qp_attr()). */
	uint8_t transport;
	uint32_t local_qpn, remote_qpn;
	uint32_t local_psn, remote_psn;
	uint8_t have_remote_qpn;
	uint8_t rep_done; /* a REP was sent or received */
	enum wqe_mtu path_mtu;
	union wqe_gid local_gid;
	uint8_t hop_limit, traffic_class, sl;
	uint32_t flow_label;
	uint8_t packet_life_time;
	uint8_t ack_timeout; /* the path's local ACK timeout code: QP timeout, TIMEWAIT, MRA */
	uint8_t retry_count, rnr_retry; /* rnr_retry: what our QP makes */
	uint8_t min_rnr_timer;
	uint8_t responder_resources, initiator_depth;

	/* Timers (IBTA 12.7.31; ib_cm's timeout_ms and max_cm_retries). */
	uint64_t timeout_ns; /* the wait for an answer to mad[] */
	uint8_t max_cm_retries;
	uint8_t retries_left;
	uint64_t deadline_ns;
	uint8_t mad[WQE_MAD_LEN];  /* the REQ/REP/DREQ/SIDR_REQ being waited on */
	uint8_t last[WQE_MAD_LEN]; /* the answer replayed on a duplicate: MRA,
				    * RTU or DREP */
	uint8_t have_last;
};

struct wqe_cm_agent {
	struct wqe_cm_agent_attr attr;
	struct wqe_cm_agent_ops ops;
	void *ctx;
	struct wqe_cm_id *ids;
	struct wqe_cm_agent_stats st;
	uint32_t tid_seq;
};

/* agent.c */
struct wqe_cm_id *cm_id_alloc(struct wqe_cm_agent *a);
void cm_id_free(struct wqe_cm_id *id);
void cm_set_state(struct wqe_cm_id *id, enum wqe_cm_state s);
struct wqe_cm_id *cm_find_local(struct wqe_cm_agent *a, uint32_t local_id);
struct wqe_cm_id *cm_find_remote(struct wqe_cm_agent *a, uint32_t remote_id,
				 const union wqe_gid *gid);
uint64_t cm_now(const struct wqe_cm_agent *a);
/* Encode @m and hand it to the peer @to; 0 or -1 (counted). With @keep,
 * the bytes go to id->mad too (resent on the timer), else to @save if
 * not NULL. */
int cm_send_msg(struct wqe_cm_agent *a, const struct wqe_cm_addr *to, const struct wqe_cm_msg *m,
		uint8_t *save);
void cm_send_raw(struct wqe_cm_agent *a, const struct wqe_cm_addr *to, const uint8_t *mad);
/* Start the wait for an answer to id->mad: @timeout_ns per try. */
void cm_arm(struct wqe_cm_id *id, uint64_t timeout_ns, uint8_t retries);
void cm_disarm(struct wqe_cm_id *id);
void cm_enter_timewait(struct wqe_cm_id *id);
/* Report @type for @id (nothing if it is detached). */
void cm_report(struct wqe_cm_id *id, enum wqe_cm_event_type type, const struct wqe_cm_msg *msg,
	       const struct wqe_cm_addr *from, uint16_t reason, struct wqe_cm_id *listen_id);
uint32_t cm_random(struct wqe_cm_agent *a);
/* The local ACK timeout code for a path of packet life time @plt to a CA
 * that takes @ca_ack_delay to ACK (both 4.096 us x 2^t codes). */
uint8_t cm_ack_timeout(uint8_t ca_ack_delay, uint8_t plt);
/* The ID's message header: this ID's transaction ID. */
void cm_msg_init(const struct wqe_cm_id *id, struct wqe_cm_msg *m, enum wqe_cm_attr attr);
/* A REJ for @id (or a stateless one when id is NULL: @lid/@rid), sent to @to. */
void cm_send_rej(struct wqe_cm_agent *a, const struct wqe_cm_id *id, const struct wqe_cm_addr *to,
		 uint64_t tid, uint32_t lid, uint32_t rid, uint8_t msg_rejected, uint16_t reason,
		 const void *ari, size_t ari_len, const void *pd, size_t pd_len);

/* agent_rx.c */
int cm_rx_dispatch(struct wqe_cm_agent *a, const struct wqe_cm_addr *from,
		   const struct wqe_cm_msg *m);

#endif /* WQE_CM_AGENT_INT_H */
