# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # (PERFTEST_TRIES: for the scripts that source this)
# perftest_retry_crash FILE...: the client's output (in any of FILEs) is
# perftest 4.5-0.17's (Debian's) known failure, not wqe's. With -R its
# server listens for the test's connection only after the handshake on
# its first one; a client faster than its server (one under load) sends
# the test's REQ before that listen, gets rdma_cm's REJ "invalid service
# ID" (8), as a kernel client would, and perftest's
# retry then uses the CM nodes it has just freed (fixed upstream in
# perftest 3d9d8d0, "Fix crashes and logical flaws in RDMA CM connection
# retry"): it crashes or fails. Both lines below are printed before the
# retry. The server, past its handshake, then waits for a test connection
# that never comes: rerunning the client alone cannot mend it, the whole
# case must run again (server too), PERFTEST_TRIES times at most.
# (Against the guest's, which always loses that race, the Soft-RoCE
# harness drops the REJ instead: tests/interop/rdmacm_harness.sh.)
PERFTEST_TRIES=6
perftest_retry_crash() {
	grep -qx 'Event: RDMA_CM_EVENT_REJECTED; error: 8.' "$@" &&
		grep -qx 'Failed to connect RDMA CM events.' "$@"
}
