/* SPDX-License-Identifier: MIT */
/* The responder (placeholder until the state machine lands: drops). */
#include "engine/responder.h"

#include "engine/nic.h"

void resp_start(struct nic *n, struct qpc *q)
{
	(void)n;
	q->eng->resp.epsn = q->rq_psn;
	q->eng->resp.msn = 0;
}

void resp_rx(struct nic *n, struct qpc *q, const struct wqe_pkt *p)
{
	(void)n;
	(void)q;
	(void)p;
}
