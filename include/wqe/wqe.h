/* SPDX-License-Identifier: MIT */
/*
 * wqe/wqe.h - the whole public API of libwqe in one include.
 *
 *   types.h      enumerations shared by every part, with *_str() names
 *   verbs.h      the software-facing shape: a verbs-shaped API
 *   desc.h       the on-chip WQE as the NIC decodes it
 *   model.h      pure Work Request -> WQE bytes, and sizes
 *   packetize.h  pure decoded WQE -> RoCEv2 request packets
 *   wire.h       RoCEv2 headers, ICRC, frames, pcap
 *   cm.h         Communication Management MADs: codec, service IDs, QP1 frames
 *   link.h       links, capture tap, clock, statistics, progress
 *   text.h       the one-line request form and the printers
 */
#ifndef WQE_WQE_H
#define WQE_WQE_H

#include "wqe/cm.h"
#include "wqe/desc.h"
#include "wqe/link.h"
#include "wqe/model.h"
#include "wqe/packetize.h"
#include "wqe/text.h"
#include "wqe/types.h"
#include "wqe/verbs.h"
#include "wqe/wire.h"

#endif /* WQE_WQE_H */
