/* SPDX-License-Identifier: MIT */
/* cm_jsonl.h - CM MADs into a capture and its tshark expectations. */
#ifndef WQE_TEST_CM_JSONL_H
#define WQE_TEST_CM_JSONL_H

#include <stdint.h>
#include <stdio.h>

#include "wqe/cm.h"
#include "wqe/wire.h"

/* Where the expectation lines go. */
void cm_jsonl_open(FILE *f);
/* One line for @m: its header and fields under Wireshark's names (REQ,
 * REP, RTU, REJ, DREQ, DREP) or the IBTA's (MRA, SIDR_REQ, SIDR_REP). */
void cm_jsonl_emit(const struct wqe_cm_msg *m);
/* @m encoded, checked to decode back, framed as a UD SEND ONLY to QP1 over
 * IPv@ipver with @psn, written to @pc at @ts; and its line. */
void cm_frame_out(struct wqe_pcap *pc, const struct wqe_cm_msg *m, int ipver, uint32_t psn,
		  uint64_t ts);

#endif
