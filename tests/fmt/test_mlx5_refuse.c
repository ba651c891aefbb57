/* SPDX-License-Identifier: MIT */
/*
 * test_mlx5_refuse.c - wqe_encode() and wqe_encoded_size() refuse, with
 * EINVAL and without writing a byte, every request the mlx5 layout cannot
 * carry; an opcode illegal on the transport is still encoded, the
 * provider's way.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "wqe/model.h"

static uint8_t ring[32 * 64], before[32 * 64];
static uint8_t payload[1024];
static struct wqe_sge sge[64];
static struct wqe_ah ah;

static void reset(struct wqe_encode_qp *qp, struct wqe_send_wr *wr, enum wqe_qp_type t,
		  enum wqe_wr_opcode op)
{
	int i;

	*qp = (struct wqe_encode_qp){ t, 0x1234, 4, 60, 0 };
	memset(wr, 0, sizeof(*wr));
	for (i = 0; i < 64; i++)
		sge[i] = (struct wqe_sge){ (uint64_t)(uintptr_t)payload, 8, 0x99 };
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	if (t == WQE_QPT_UD)
		wr->wr.ud.ah = &ah;
}

/* Expects EINVAL from both calls and an untouched ring. */
static void refused(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr, int line)
{
	struct wqe_ring_view view = { ring, 32 };
	uint32_t bytes = 0xdead, nblocks = 0xdead;
	int rc;

	memset(ring, 0x5c, sizeof(ring));
	memcpy(before, ring, sizeof(ring));
	rc = wqe_encoded_size(WQE_FORMAT_MLX5, qp, wr, &bytes);
	if (rc != EINVAL)
		test_fail(__FILE__, line, "wqe_encoded_size gave %d", rc);
	rc = wqe_encode(WQE_FORMAT_MLX5, qp, wr, &view, 30, 0, &nblocks);
	if (rc != EINVAL)
		test_fail(__FILE__, line, "wqe_encode gave %d", rc);
	CHECK_EQ(bytes, 0xdead);
	CHECK_EQ(nblocks, 0xdead);
	CHECK_MEM(ring, before, sizeof(ring));
	test_checks += 2;
}

static int encodes(const struct wqe_encode_qp *qp, const struct wqe_send_wr *wr)
{
	struct wqe_ring_view view = { ring, 32 };

	return wqe_encode(WQE_FORMAT_MLX5, qp, wr, &view, 30, 0, NULL);
}

static void test_request(void)
{
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;

	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_SEND);
	CHECK_EQ(encodes(&qp, &wr), 0);
	wr.opcode = (enum wqe_wr_opcode)7; /* LOCAL_INV: not modelled */
	refused(&qp, &wr, __LINE__);
	wr.opcode = (enum wqe_wr_opcode)-1;
	refused(&qp, &wr, __LINE__);
	wr.opcode = (enum wqe_wr_opcode)14;
	refused(&qp, &wr, __LINE__);
	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_SEND);
	wr.send_flags = 1u << 4; /* IP_CSUM */
	refused(&qp, &wr, __LINE__);
	wr.send_flags = 1u << 31;
	refused(&qp, &wr, __LINE__);
	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_SEND);
	wr.num_sge = -1;
	refused(&qp, &wr, __LINE__);
	wr.num_sge = 5; /* max_send_sge 4 */
	refused(&qp, &wr, __LINE__);
	wr.num_sge = 1;
	wr.sg_list = NULL;
	refused(&qp, &wr, __LINE__);
	wr.num_sge = 0;
	CHECK_EQ(encodes(&qp, &wr), 0); /* NULL list with no SGE is fine */
	reset(&qp, &wr, WQE_QPT_UD, WQE_WR_SEND);
	CHECK_EQ(encodes(&qp, &wr), 0);
	wr.wr.ud.ah = NULL;
	refused(&qp, &wr, __LINE__);
	reset(&qp, &wr, (enum wqe_qp_type)5, WQE_WR_SEND);
	refused(&qp, &wr, __LINE__);
}

static void test_inline(void)
{
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;

	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_RDMA_READ);
	wr.send_flags = WQE_SEND_INLINE;
	refused(&qp, &wr, __LINE__);
	wr.opcode = WQE_WR_ATOMIC_CMP_AND_SWP;
	refused(&qp, &wr, __LINE__);
	wr.opcode = WQE_WR_ATOMIC_FETCH_AND_ADD;
	refused(&qp, &wr, __LINE__);
	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_RDMA_WRITE);
	wr.send_flags = WQE_SEND_INLINE;
	sge[0].length = 60;
	CHECK_EQ(encodes(&qp, &wr), 0);
	sge[0].length = 61; /* max_inline_data 60 */
	refused(&qp, &wr, __LINE__);
	sge[0].length = 30, sge[1].length = 31, wr.num_sge = 2;
	refused(&qp, &wr, __LINE__);
	sge[0].length = 0xffffffffu, sge[1].length = 2; /* the sum must not wrap */
	refused(&qp, &wr, __LINE__);
	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_SEND);
	wr.send_flags = WQE_SEND_INLINE;
	sge[0].addr = 0; /* inline bytes from address 0 */
	refused(&qp, &wr, __LINE__);
}

static void test_too_big(void)
{
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;

	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_SEND);
	qp.max_send_sge = 64;
	wr.num_sge = 62; /* 63 DS */
	CHECK_EQ(encodes(&qp, &wr), 0);
	wr.num_sge = 63;
	refused(&qp, &wr, __LINE__);
	sge[62].length = 0; /* empty SGEs cost nothing */
	CHECK_EQ(encodes(&qp, &wr), 0);
	reset(&qp, &wr, WQE_QPT_UD, WQE_WR_SEND);
	qp.max_inline_data = 4096;
	wr.send_flags = WQE_SEND_INLINE;
	sge[0].length = 59 * 16 - 4; /* 1 + 3 + 59 DS */
	CHECK_EQ(encodes(&qp, &wr), 0);
	sge[0].length++;
	refused(&qp, &wr, __LINE__);
}

static void test_ring(void)
{
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;
	struct wqe_ring_view view = { ring, 8 };

	reset(&qp, &wr, WQE_QPT_RC, WQE_WR_SEND);
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &wr, &view, 0, 0, NULL), EINVAL);
	view.nblocks = 24;
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &wr, &view, 0, 0, NULL), EINVAL);
	view.nblocks = 16;
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &wr, &view, 0, 0, NULL), 0);
	view.buf = NULL;
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &wr, &view, 0, 0, NULL), EINVAL);
	view.buf = ring;
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, NULL, &wr, &view, 0, 0, NULL), EINVAL);
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, NULL, &view, 0, 0, NULL), EINVAL);
	CHECK_EQ(wqe_encode(WQE_FORMAT_MLX5, &qp, &wr, NULL, 0, 0, NULL), EINVAL);
	CHECK_EQ(wqe_encode((enum wqe_format)7, &qp, &wr, &view, 0, 0, NULL), EINVAL);
	CHECK_EQ(wqe_encoded_size((enum wqe_format)7, &qp, &wr, &(uint32_t){ 0 }), EINVAL);
	CHECK_EQ(wqe_encoded_size(WQE_FORMAT_MLX5, &qp, &wr, NULL), EINVAL);
}

/* Post-time policy is not the encoder's: these encode as the provider would. */
static void test_illegal_but_encoded(void)
{
	struct wqe_encode_qp qp;
	struct wqe_send_wr wr;
	uint32_t bytes = 0;

	reset(&qp, &wr, WQE_QPT_UC, WQE_WR_RDMA_READ); /* UC: no raddr seg */
	CHECK_EQ(encodes(&qp, &wr), 0);
	CHECK_EQ(ring[30 * 64 + 7], 2);
	CHECK_EQ(ring[30 * 64 + 3], 0x10);
	reset(&qp, &wr, WQE_QPT_UD, WQE_WR_RDMA_WRITE); /* UD: datagram seg */
	CHECK_EQ(encodes(&qp, &wr), 0);
	CHECK_EQ(ring[30 * 64 + 7], 5);
	CHECK_EQ(wqe_encoded_size(WQE_FORMAT_MLX5, &qp, &wr, &bytes), 0);
	CHECK_EQ(bytes, 128);
	reset(&qp, &wr, WQE_QPT_UC, WQE_WR_ATOMIC_CMP_AND_SWP);
	wr.num_sge = 2; /* data segments only, each saying 8 bytes */
	CHECK_EQ(encodes(&qp, &wr), 0);
	CHECK_EQ(ring[30 * 64 + 7], 3);
}

int main(void)
{
	test_request();
	test_inline();
	test_too_big();
	test_ring();
	test_illegal_but_encoded();
	return test_finish();
}
