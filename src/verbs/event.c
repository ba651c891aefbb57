/* SPDX-License-Identifier: MIT */
/*
 * Completion channels and completion events: IBTA vol. 1 11.4.2.2
 * "Request Completion Notification" as libibverbs shapes it. A CQ's arm
 * lives in its CQ context, where the engine fires it (tables/qpc.c); this
 * file arms it and delivers its events.
 *
 * The channel's fd is an eventfd, not a pipe: its counter is the number of
 * events pending, with no bound to reach (a pipe holds 4 to 64 KiB, and a
 * full one would either lose an event or stall the NIC that delivers it);
 * EFD_SEMAPHORE makes each read take exactly one; poll() reports it
 * readable exactly while the counter is not zero. eventfd is Linux's, as
 * the UDP link's socket options are.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "verbs/verbs_int.h"

int verbs_efd_take(int fd)
{
	uint64_t token;
	ssize_t r = read(fd, &token, sizeof(token));

	if (r < 0)
		return -1; /* EAGAIN (O_NONBLOCK), EINTR, ... as read() */
	if (r != (ssize_t)sizeof(token)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

void verbs_efd_drain(int fd, uint32_t n)
{
	for (; n; n--) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t token;

		if (poll(&p, 1, 0) != 1 || read(fd, &token, sizeof(token)) < 0)
			return;
	}
}

int verbs_ring_grow(void **ring, uint32_t *cap, uint32_t *head, uint32_t count, size_t elem,
		    uint64_t need, uint32_t first)
{
	uint32_t nc = *cap ? *cap : first;
	uint8_t *nr;

	if (need <= *cap)
		return 0;
	if (need > VERBS_RING_MAX)
		return ENOMEM;
	while (nc < need)
		nc <<= 1;
	nr = malloc((size_t)nc * elem);
	if (!nr)
		return ENOMEM;
	for (uint32_t i = 0; i < count; i++)
		memcpy(nr + (size_t)i * elem,
		       (const uint8_t *)*ring + (size_t)((*head + i) & (*cap - 1)) * elem, elem);
	free(*ring);
	*ring = nr;
	*cap = nc;
	*head = 0;
	return 0;
}

struct wqe_comp_channel *wqe_create_comp_channel(struct wqe_context *ctx)
{
	struct comp_channel *ch;
	int fd, err;

	if (!ctx) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (fd < 0) {
		err = errno;
		free(ch);
		errno = err;
		return NULL;
	}
	err = pthread_mutex_init(&ch->lock, NULL);
	if (err) {
		close(fd);
		free(ch);
		errno = err;
		return NULL;
	}
	ch->pub.context = ctx;
	ch->pub.fd = fd;
	ctx->nchannel++;
	return &ch->pub;
}

void verbs_channel_ref(struct comp_channel *ch)
{
	pthread_mutex_lock(&ch->lock);
	ch->pub.refcnt++;
	pthread_mutex_unlock(&ch->lock);
}

int wqe_destroy_comp_channel(struct wqe_comp_channel *channel)
{
	struct comp_channel *ch;
	int refs;

	if (!channel)
		return EINVAL;
	ch = channel_of(channel);
	pthread_mutex_lock(&ch->lock);
	refs = channel->refcnt;
	pthread_mutex_unlock(&ch->lock);
	if (refs)
		return EBUSY;
	/* Every CQ of the channel is gone, and its events with it. */
	channel->context->nchannel--;
	close(channel->fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch->ev);
	free(ch);
	return 0;
}

int wqe_req_notify_cq(struct wqe_cq *cq, int solicited_only)
{
	enum cq_arm a = solicited_only ? CQ_ARM_SOLICITED : CQ_ARM_NEXT;
	struct comp_channel *ch;
	int err = 0;

	if (!cq)
		return EINVAL;
	ch = cq->channel;
	if (!ch) {
		/* No channel: the arm only decides whether an event would fire. */
		if (cqc_arm_raise(&cq->cqc, a) == CQ_ARM_NONE)
			cqc_arm_set(&cq->cqc, a);
		return 0;
	}
	pthread_mutex_lock(&ch->lock);
	if (cqc_arm_raise(&cq->cqc, a) == CQ_ARM_NONE) {
		void *ring = ch->ev;

		/* A new arm: the event it may produce gets its slot now, so
		 * that the engine never allocates (or fails) to deliver it. */
		err = verbs_ring_grow(&ring, &ch->ev_cap, &ch->ev_head, ch->ev_count,
				      sizeof(*ch->ev), (uint64_t)ch->ev_count + ch->narmed + 1, 8);
		ch->ev = ring;
		if (!err) {
			ch->narmed++;
			cqc_arm_set(&cq->cqc, a);
		}
	}
	pthread_mutex_unlock(&ch->lock);
	return err;
}

void verbs_cq_event(struct cqc *c)
{
	struct wqe_cq *cq = container_of(c, struct wqe_cq, cqc);
	struct comp_channel *ch = cq->channel;
	uint64_t one = 1;
	ssize_t w;

	pthread_mutex_lock(&ch->lock);
	ch->narmed--;
	ch->ev[(ch->ev_head + ch->ev_count) & (ch->ev_cap - 1)] = cq;
	ch->ev_count++;
	/* Adding 1 to an eventfd fails only at a count of 2^64 - 2; the
	 * entry is in the ring before its token is, so a reader that took a
	 * token always finds an entry. */
	w = write(ch->pub.fd, &one, sizeof(one));
	(void)w;
	pthread_mutex_unlock(&ch->lock);
}

int wqe_get_cq_event(struct wqe_comp_channel *channel, struct wqe_cq **cq, void **cq_context)
{
	struct comp_channel *ch;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	ch = channel_of(channel);
	for (;;) {
		struct wqe_cq *got = NULL;

		if (verbs_efd_take(channel->fd))
			return -1;
		pthread_mutex_lock(&ch->lock);
		if (ch->ev_count) {
			got = ch->ev[ch->ev_head];
			ch->ev_head = (ch->ev_head + 1) & (ch->ev_cap - 1);
			ch->ev_count--;
			got->events_got++;
			*cq = got;
			*cq_context = got->cq_context;
		}
		pthread_mutex_unlock(&ch->lock);
		if (got)
			return 0;
		/* A token with no event: its CQ was destroyed while this call
		 * waited (which the contract forbids); wait for the next. */
	}
}

void wqe_ack_cq_events(struct wqe_cq *cq, unsigned int nevents)
{
	struct comp_channel *ch;
	uint32_t open;

	if (!cq || !cq->channel)
		return;
	ch = cq->channel;
	pthread_mutex_lock(&ch->lock);
	open = cq->events_got - cq->events_acked;
	cq->events_acked += nevents < open ? nevents : open;
	pthread_mutex_unlock(&ch->lock);
}

int verbs_cq_detach(struct wqe_cq *cq)
{
	struct comp_channel *ch = cq->channel;
	uint32_t kept = 0, mask;

	if (!ch)
		return 0;
	pthread_mutex_lock(&ch->lock);
	/* ibv_destroy_cq() waits for these acknowledgements; here the thread
	 * that would wait may be the only one that can give them. */
	if (cq->events_got != cq->events_acked) {
		pthread_mutex_unlock(&ch->lock);
		return EBUSY;
	}
	/* Events not yet taken go with the CQ, as the kernel's uverbs drops
	 * them; the others keep their order. */
	mask = ch->ev_cap - 1;
	for (uint32_t i = 0; i < ch->ev_count; i++) {
		struct wqe_cq *e = ch->ev[(ch->ev_head + i) & mask];

		if (e != cq)
			ch->ev[(ch->ev_head + kept++) & mask] = e;
	}
	verbs_efd_drain(ch->pub.fd, ch->ev_count - kept);
	ch->ev_count = kept;
	if (cqc_disarm(&cq->cqc))
		ch->narmed--;
	ch->pub.refcnt--;
	pthread_mutex_unlock(&ch->lock);
	return 0;
}
