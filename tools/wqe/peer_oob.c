/* SPDX-License-Identifier: MIT */
/*
 * wqe peer's out-of-band channel: one TCP connection that carries text
 * lines of "key=value" words, as perftest trades QP numbers, PSNs, GIDs,
 * addresses and keys before any RDMA traffic. Every wait ends at the run's
 * deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

uint64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int cli_parse_addr(const char *s, struct cli_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->gid.raw + 12) == 1) {
		a->gid.raw[10] = a->gid.raw[11] = 0xff;
		a->family = AF_INET;
	} else if (inet_pton(AF_INET6, s, a->gid.raw) == 1) {
		a->family = AF_INET6;
	} else {
		return -1;
	}
	snprintf(a->text, sizeof(a->text), "%s", s);
	return 0;
}

int cli_oob_fail(const struct cli_oob *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wqe peer (%s): ", o->who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Milliseconds left before @deadline, at least 1, at most @cap. */
static int ms_left(uint64_t deadline, int cap)
{
	uint64_t now = cli_now_ns(), ms;

	if (now >= deadline)
		return 1;
	ms = (deadline - now) / 1000000u + 1;
	return ms > (uint64_t)cap ? cap : (int)ms;
}

static socklen_t sockaddr_of(const struct cli_addr *a, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->gid.raw + 12, 4);
		return sizeof(*s4);
	}
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, a->gid.raw, 16);
	return sizeof(*s6);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int cli_oob_accept(struct cli_oob *o, const struct cli_addr *local, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(local, port, &ss);
	int one = 1, lfd = socket(local->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 1) || set_nonblock(lfd)) {
		cli_oob_fail(o, "cannot listen on %s TCP port %u: %s", local->text, port,
			     strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	printf("wqe peer: server on %s, waiting for a client on TCP port %u\n", local->text, port);
	fflush(stdout);
	while ((o->fd = accept(lfd, NULL, NULL)) < 0) {
		struct pollfd pf = {lfd, POLLIN, 0};

		if ((errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		     errno != ECONNABORTED) ||
		    cli_now_ns() >= o->deadline)
			break;
		(void)poll(&pf, 1, ms_left(o->deadline, 1000));
	}
	close(lfd);
	if (o->fd < 0)
		return cli_oob_fail(o, "no client before the timeout");
	return set_nonblock(o->fd);
}

int cli_oob_dial(struct cli_oob *o, const struct cli_addr *remote, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(remote, port, &ss);

	while (cli_now_ns() < o->deadline) {
		int fd = socket(remote->family, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;
		socklen_t el = sizeof(err);
		struct pollfd pf = {fd, POLLOUT, 0};

		if (fd < 0 || set_nonblock(fd)) {
			if (fd >= 0)
				close(fd);
			return cli_oob_fail(o, "socket: %s", strerror(errno));
		}
		if (connect(fd, (struct sockaddr *)&ss, len) == 0 ||
		    (errno == EINPROGRESS && poll(&pf, 1, ms_left(o->deadline, 60000)) == 1 &&
		     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0)) {
			o->fd = fd;
			return 0;
		}
		close(fd);
		(void)poll(NULL, 0, ms_left(o->deadline, 100)); /* not listening yet? */
	}
	return cli_oob_fail(o, "no server at %s TCP port %u before the timeout", remote->text,
			    port);
}

int cli_oob_send(struct cli_oob *o, const char *fmt, ...)
{
	char line[CLI_OOB_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return cli_oob_fail(o, "out-of-band line too long");
	for (size_t off = 0; off < (size_t)n;) {
		ssize_t w = send(o->fd, line + off, (size_t)n - off, MSG_NOSIGNAL);

		if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = {o->fd, POLLOUT, 0};

			if (cli_now_ns() >= o->deadline)
				return cli_oob_fail(o, "timed out sending to the other side");
			(void)poll(&pf, 1, ms_left(o->deadline, 100));
			continue;
		}
		if (w <= 0)
			return cli_oob_fail(o, "out-of-band send: %s", strerror(errno));
		off += (size_t)w;
	}
	return 0;
}

int cli_oob_poll_line(struct cli_oob *o, char *line)
{
	for (;;) {
		char *nl = memchr(o->buf, '\n', o->len);
		ssize_t n;

		if (nl) {
			size_t k = (size_t)(nl - o->buf);

			memcpy(line, o->buf, k);
			line[k] = '\0';
			memmove(o->buf, nl + 1, o->len - k - 1);
			o->len -= k + 1;
			/* The protocol is printable ASCII. Anything else is refused
			 * here, before any message could quote the line: a peer
			 * must not reach the operator's terminal (escape
			 * sequences). The byte is named, never printed. */
			for (size_t i = 0; i < k; i++) {
				unsigned char c = (unsigned char)line[i];

				if (c < 0x20 || c > 0x7e) {
					line[0] = '\0';
					return cli_oob_fail(o,
							    "the other side sent a byte that is not "
							    "printable ASCII (0x%02x at %zu of a line)",
							    c, i);
				}
			}
			return 1;
		}
		if (o->len == sizeof(o->buf))
			return cli_oob_fail(o, "out-of-band line too long");
		n = recv(o->fd, o->buf + o->len, sizeof(o->buf) - o->len, MSG_DONTWAIT);
		if (n > 0) {
			o->len += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		return cli_oob_fail(o, "the other side closed the out-of-band connection%s%s",
				    n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
	}
}

void cli_oob_close(struct cli_oob *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

const char *cli_kv(const char *line, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = line; (s = strstr(s, key)) != NULL; s += n)
		if ((s == line || s[-1] == ' ') && s[n] == '=')
			return s + n + 1;
	return NULL;
}

int cli_kv_u64(const char *line, const char *key, uint64_t max, uint64_t *v)
{
	const char *s = cli_kv(line, key);
	char *end;

	if (!s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || (*end && *end != ' ') || *v > max ? -1 : 0;
}

int cli_kv_u32(const char *line, const char *key, uint32_t max, uint32_t *v)
{
	uint64_t x;

	if (cli_kv_u64(line, key, max, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int cli_kv_word(const char *line, const char *key, char *out, size_t cap)
{
	const char *s = cli_kv(line, key);
	size_t n;

	if (!s)
		return -1;
	n = strcspn(s, " ");
	if (!n || n >= cap)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}
