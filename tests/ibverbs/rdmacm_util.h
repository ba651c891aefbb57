/* SPDX-License-Identifier: MIT */
/*
 * What rdmacm_api's cases share: the checks (thread-safe), the watchdog,
 * the two devices' addresses, bounded waits for CM events and completions,
 * and a connection's pieces (struct pair). Built, like the test, against
 * the system's <rdma/rdma_cma.h> and never instrumented.
 */
#ifndef RDMACM_UTIL_H
#define RDMACM_UTIL_H

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>

/* Device A (wqe0) takes the passive side, B (wqe1) the active side. */
#define ADDR_A "127.0.0.73"
#define ADDR_B "127.0.0.74"

/* The bound on every wait for one CM event or completion. */
enum { EV_MS = 5000 };

/* A failed check prints its line and the case; the count is atomic (the
 * threads of case 8 check too). CHECK is true when @c held. */
#define CHECK(c) check_at(!!(c), #c, __FILE__, __LINE__)
bool check_at(int ok, const char *what, const char *file, int line);
int checks_run(void);
int checks_failed(void);

/* Starts case @name: a hang past @seconds ends the process (exit 1),
 * naming it. */
void begin(const char *name, unsigned seconds);
void watchdog_init(void);

struct sockaddr_in sa(const char *ip, uint16_t port);
/* @s is AF_INET @ip, port @port (0: any nonzero port). */
bool sa_is(const struct sockaddr *s, const char *ip, uint16_t port);
/* @g is the RoCEv2 GID of @ip (::ffff:a.b.c.d). */
bool gid_is(const union ibv_gid *g, const char *ip);

/* The next event on @ch within @ms, or NULL. */
struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms);
/* The next event on @ch within EV_MS, which must be @type for @id (any ID
 * if NULL): it, unacked; NULL (a failed check, anything taken acked). */
#define EXPECT(ch, type, id) expect_at(ch, type, id, __FILE__, __LINE__)
struct rdma_cm_event *expect_at(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
				struct rdma_cm_id *id, const char *file, int line);
/* EXPECT with status 0, acked at once: whether it came. */
#define EXPECT_OK(ch, type, id) expect_ok_at(ch, type, id, __FILE__, __LINE__)
bool expect_ok_at(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		  struct rdma_cm_id *id, const char *file, int line);
/* No event on @ch for @ms. */
bool quiet(struct rdma_event_channel *ch, int ms);

/* One completion from @cq within EV_MS: 1, or 0. */
int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc);
/* @qp's state (and in *@a its depths, Q_Key, destination QPN), or -1. */
int qp_state(struct ibv_qp *qp, struct ibv_qp_attr *a);
/* 16 send and receive WRs of one SGE, no CQ given. */
struct ibv_qp_init_attr qp_attr(enum ibv_qp_type t);
void fill(uint8_t *p, size_t n, unsigned seed);
/* A connection's parameters: @len bytes of @pdata, depths 1, retries 7. */
struct rdma_conn_param conn_param(const void *pdata, uint8_t len);

/* A connection's pieces: the channels of A and B, A's listener, A's
 * passive ID, B's active ID. */
struct pair {
	struct rdma_event_channel *cha, *chb;
	struct rdma_cm_id *lis, *a, *b;
};

/* These three report a failed check at their caller's line. */

/* Both channels and a listener of @ps on A:@port (backlog 4). */
#define pair_listen(p, ps, port) pair_listen_at(p, ps, port, __FILE__, __LINE__)
bool pair_listen_at(struct pair *p, enum rdma_port_space ps, uint16_t port, const char *file,
		    int line);
/* B's ID on chb, resolved from B (an ephemeral port) to A:@port, its route
 * resolved, and with @qpt other than 0 a QP from rdma_create_qp() on
 * id->pd with CQs librdmacm makes. */
#define pair_resolve(p, ps, port, qpt) pair_resolve_at(p, ps, port, qpt, __FILE__, __LINE__)
bool pair_resolve_at(struct pair *p, enum rdma_port_space ps, uint16_t port, enum ibv_qp_type qpt,
		     const char *file, int line);
/* The next CONNECT_REQUEST on cha (from the listener): its ID in p->a,
 * *@conn and @pdata (@len bytes) copied out, the event acked. */
#define pair_request(p, conn, pdata, len) pair_request_at(p, conn, pdata, len, __FILE__, __LINE__)
bool pair_request_at(struct pair *p, struct rdma_conn_param *conn, uint8_t *pdata, size_t len,
		     const char *file, int line);
/* Destroys what is left: QPs, IDs, channels. */
void pair_free(struct pair *p);

/* The contexts the IDs are created with. */
extern int ctx_a, ctx_b;

#endif
