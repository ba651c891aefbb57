/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: the file (written whole or not at all), escaping, and
 * the page around its parts (html_ladder.c, html_wqe.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
#include "wqe/wire.h"

struct html_report *html_open(const char *path, char *err, size_t cap)
{
	struct html_report *h = calloc(1, sizeof(*h));
	size_t n = strlen(path) + 8;
	mode_t um;
	int fd;

	if (!h || !*path || !(h->path = strdup(path)) || !(h->tmp = malloc(n))) {
		snprintf(err, cap, "cannot write %s: %s", path,
			 *path ? strerror(ENOMEM) : "empty path");
		html_abort(h);
		return NULL;
	}
	/* Beside the target, so that the final rename cannot cross filesystems. */
	snprintf(h->tmp, n, "%s.XXXXXX", path);
	fd = mkstemp(h->tmp);
	if (fd < 0) {
		snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
		free(h->tmp);
		h->tmp = NULL;
		html_abort(h);
		return NULL;
	}
	/* mkstemp() makes it 0600; the report is an ordinary file. */
	um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) || !(h->f = fdopen(fd, "w"))) {
		snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		html_abort(h);
		return NULL;
	}
	return h;
}

static void free_report(struct html_report *h)
{
	for (size_t i = 0; i < h->npkt; i++)
		free(h->pkt[i].frame);
	for (size_t i = 0; i < h->nreq; i++) {
		free(h->req[i].text);
		free(h->req[i].wr_text);
		free(h->req[i].wqe);
		free(h->req[i].nic_text);
	}
	free(h->pkt);
	free(h->req);
	free(h->ring);
	free(h->summary_rows);
	free(h->path);
	free(h->tmp);
	free(h);
}

void html_abort(struct html_report *h)
{
	if (!h)
		return;
	if (h->f)
		fclose(h->f);
	if (h->tmp && h->f)
		unlink(h->tmp);
	free_report(h);
}

void html_esc(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* Control bytes have no business in a page: shown, not passed. */
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				fprintf(f, "\\x%02x", c);
			else
				fputc(c, f);
		}
	}
}

void html_escs(FILE *f, const char *s)
{
	if (s)
		html_esc(f, s, strlen(s));
}

int html_lane(struct html_report *h, const char *name, const union wqe_gid *gid)
{
	char a[48];

	if (h->nlanes == (int)(sizeof(h->lane) / sizeof(h->lane[0])))
		return -1;
	snprintf(h->lane[h->nlanes], HTML_NAME_MAX, "%s", name);
	h->lane_gid[h->nlanes] = *gid;
	cli_gid_str(gid, a, sizeof(a));
	snprintf(h->lane_addr[h->nlanes], sizeof(h->lane_addr[0]), "%s", a);
	return h->nlanes++;
}

int html_lane_of(struct html_report *h, const union wqe_gid *gid)
{
	char a[48];

	for (int i = 0; i < h->nlanes; i++)
		if (!memcmp(h->lane_gid[i].raw, gid->raw, sizeof(gid->raw)))
			return i;
	cli_gid_str(gid, a, sizeof(a));
	return html_lane(h, a, gid);
}

struct html_pkt *html_add_pkt(struct html_report *h, int64_t index, uint64_t t,
			      const uint8_t *frame, size_t len, int linktype)
{
	struct html_pkt *k;

	if (h->npkt == h->cappkt) {
		size_t nc = h->cappkt ? h->cappkt * 2 : 64;
		struct html_pkt *p = realloc(h->pkt, nc * sizeof(*p));

		if (!p) {
			h->oom = true;
			return NULL;
		}
		h->pkt = p;
		h->cappkt = nc;
	}
	k = &h->pkt[h->npkt];
	memset(k, 0, sizeof(*k));
	if (len && !(k->frame = malloc(len))) {
		h->oom = true;
		return NULL;
	}
	if (len)
		memcpy(k->frame, frame, len);
	k->len = len;
	k->index = index;
	k->time_ns = t;
	k->from = k->to = -1;
	k->request = -1;
	k->linktype = linktype;
	h->npkt++;
	return k;
}

void html_mark_retransmit(struct html_report *h, struct html_pkt *k)
{
	struct wqe_wire_opinfo oi;
	struct wqe_pkt p, q;

	if (wqe_pkt_parse_link(k->linktype, k->frame, k->len, &p) ||
	    wqe_wire_opcode_info(p.bth.opcode, &oi) || oi.is_response)
		return;
	for (struct html_pkt *o = h->pkt; o < k; o++)
		if (o->from == k->from && !wqe_pkt_parse_link(o->linktype, o->frame, o->len, &q) &&
		    q.bth.destqp == p.bth.destqp && q.bth.psn == p.bth.psn &&
		    q.bth.opcode == p.bth.opcode) {
			k->retransmit = true;
			return;
		}
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}"
    "h1{font-size:1.4em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
    "pre,.mono{font:12px/1.35 ui-monospace,monospace}pre{background:#f6f6f6;padding:.5em;"
    "overflow-x:auto}"
    ".verdict.ok{color:#1a7f37}.verdict.bad{color:#b42318;font-weight:bold}"
    "svg text{font:11px ui-monospace,monospace;fill:#222}"
    ".lane{stroke:#888;stroke-width:2}.lanename{font-weight:bold;font-size:13px}"
    ".pkt line{stroke-width:1.6}.pkt text{fill:#222}"
    ".pkt.req line{stroke:#1f5fbf}.pkt.req polygon{fill:#1f5fbf}"
    ".pkt.resp line{stroke:#0a8f6a}.pkt.resp polygon{fill:#0a8f6a}"
    ".pkt.ack line{stroke:#3a9d23}.pkt.ack polygon{fill:#3a9d23}"
    ".pkt.retx line{stroke:#d97706;stroke-dasharray:6 3}.pkt.retx polygon{fill:#d97706}"
    ".pkt.nak line{stroke:#d11;stroke-width:2.4}.pkt.nak polygon{fill:#d11}"
    ".pkt.nak text{fill:#d11;font-weight:bold}"
    ".pkt.lost line{stroke:#999;stroke-dasharray:2 3}.pkt.lost text{fill:#777}"
    ".pkt.damaged line,.pkt.badicrc line{stroke:#8e24aa}"
    ".pkt.damaged polygon,.pkt.badicrc polygon{fill:#8e24aa}"
    ".pkt.dropped line{stroke:#b42318}.pkt.dropped polygon{fill:#b42318}"
    ".pkt.other text{fill:#777;font-style:italic}"
    ".mark{font-weight:bold;font-size:14px}.pkt.lost .mark{fill:#777}"
    ".pkt:hover text{font-weight:bold}.pkt:target line{stroke-width:4}"
    ".legend span{display:inline-block;margin-right:1.2em}"
    ".legend i{display:inline-block;width:26px;height:0;border-top:3px solid;"
    "vertical-align:middle;margin-right:4px}"
    ".shapes{display:flex;gap:1em;align-items:flex-start;flex-wrap:wrap}"
    ".shape{flex:1 1 30%;min-width:320px;border:1px solid #ddd;padding:.5em;"
    "border-radius:4px;overflow-x:auto}.shape h4{margin:.2em 0 .4em}"
    ".req{border-top:1px dashed #bbb;margin-top:1.5em}.req:target{background:#fffbe6}"
    "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;"
    "text-align:left;vertical-align:top}tr.bad td{background:#fdecea}"
    "table.fields td{font:11px ui-monospace,monospace}"
    ".seg0{fill:#dbeafe}.seg1{fill:#dcfce7}.seg2{fill:#fef3c7}.seg3{fill:#fce7f3}"
    ".seg4{fill:#e0e7ff}.seg5{fill:#ccfbf1}.seg6{fill:#fde2cf}.seg7{fill:#ede9fe}"
    ".seg8{fill:#eeeeee}.field{stroke:#555;stroke-width:.8}"
    ".fname{font:9px system-ui,sans-serif;fill:#333}.hex{font:10px ui-monospace,monospace}"
    ".ring{fill:none;stroke:#1f5fbf;stroke-width:1.5}.ringbox{fill:#fafafa;stroke:#ccc}"
    ".stall{fill:#d11}"
    "details{margin:.2em 0}details:target{background:#fffbe6}summary{cursor:pointer}";

/* A tiny script: expand or fold every packet's details at once. */
static const char script[] =
    "(function(){var b=document.getElementById('toggle');if(!b)return;"
    "b.addEventListener('click',function(){var d=document.querySelectorAll('#packets "
    "details');var o=!(d.length&&d[0].open);for(var i=0;i<d.length;i++)d[i].open=o;});"
    "})();";

static void legend(FILE *f)
{
	static const struct {
		const char *cls, *colour, *what;
	} t[] = {
	    {"req", "#1f5fbf", "request packet"},
	    {"resp", "#0a8f6a", "READ response / atomic ACK"},
	    {"ack", "#3a9d23", "ACK"},
	    {"nak", "#d11", "NAK or RNR NAK (syndrome named)"},
	    {"retx", "#d97706", "retransmission (dashed)"},
	    {"lost", "#999", "lost in the link (stops half-way, x)"},
	    {"dropped", "#b42318", "dropped by the receiving port (|)"},
	    {"damaged", "#8e24aa", "arrived damaged / ICRC bad (!)"},
	};

	fputs("<p class=\"legend\">", f);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		fprintf(f, "<span class=\"lg-%s\"><i style=\"border-color:%s\"></i>%s</span>",
			t[i].cls, t[i].colour, t[i].what);
	fputs("</p>\n", f);
}

static void packet_details(FILE *f, const struct html_report *h)
{
	fputs("<section id=\"packets\"><h2>Packets, header by header</h2>\n"
	      "<p><button id=\"toggle\" type=\"button\">expand / fold all</button> As "
	      "<code>wqe dissect</code> prints them; the ICRC is checked.</p>\n",
	      f);
	for (size_t i = 0; i < h->npkt; i++) {
		const struct html_pkt *k = &h->pkt[i];
		struct wqe_pkt p;
		int rc = wqe_pkt_parse_link(k->linktype, k->frame, k->len, &p);
		char *buf = NULL;
		size_t n = 0;
		FILE *m;

		fprintf(f,
			"<details id=\"pd-%lld\"><summary>frame %lld, %zu B, <a href=\"#pkt-%lld\">"
			"ladder</a>",
			(long long)k->index, (long long)k->index, k->len, (long long)k->index);
		if (k->request >= 0)
			fprintf(f, ", request <a href=\"#req-%d\">#%d</a>", k->request + 1,
				k->request + 1);
		if (rc)
			fprintf(f, ": not a RoCEv2 packet (%s)", wqe_pkt_err_str(rc));
		else
			fprintf(f, ": %s PSN %u, ICRC %s", wqe_wire_opcode_str(p.bth.opcode),
				p.bth.psn, p.icrc_ok ? "ok" : "BAD");
		fputs("</summary>", f);
		if (!rc && (m = open_memstream(&buf, &n))) {
			wqe_pkt_print(m, &p);
			fclose(m);
			fputs("<pre>", f);
			html_esc(f, buf, n);
			fputs("</pre>", f);
		}
		free(buf);
		fputs("</details>\n", f);
	}
	fputs("</section>\n", f);
}

static void summary(FILE *f, const struct html_report *h)
{
	fputs("<section id=\"summary\"><h2>Summary: one row per request posted</h2>\n<table><tr>"
	      "<th>#</th><th>line</th><th>QP</th><th>tr</th><th>opcode</th><th>flags</th>"
	      "<th>WQE B/blk</th><th>data</th><th>host txns</th><th>pkts</th><th>completion</th>"
	      "</tr>\n",
	      f);
	if (h->summary_rows)
		fputs(h->summary_rows, f);
	fputs("</table>\n<pre>", f);
	html_escs(f, h->legend);
	fputs("</pre></section>\n", f);
}

static void page(FILE *f, const struct html_report *h)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	html_escs(f, h->title);
	fputs("</title>\n<style>", f);
	fputs(style, f);
	fputs("</style></head><body>\n<header><h1>", f);
	html_escs(f, h->title);
	fputs("</h1>\n<p>", f);
	html_escs(f, h->source);
	fprintf(f, "</p>\n<p class=\"verdict %s\">", h->failed ? "bad" : "ok");
	html_escs(f, h->verdict);
	fputs("</p>\n<nav><a href=\"#ladder\">exchange</a>", f);
	if (!h->capture_only)
		fputs(" | <a href=\"#rings\">send rings</a> | <a href=\"#requests\">requests</a>",
		      f);
	if (h->two_shapes)
		fputs(" | <a href=\"#two-shapes\">mlx5 and rxe</a>", f);
	fputs(" | <a href=\"#packets\">packets</a>", f);
	if (!h->capture_only)
		fputs(" | <a href=\"#summary\">summary</a>", f);
	fputs("</nav></header>\n<section id=\"ladder\"><h2>The exchange between the NICs</h2>\n",
	      f);
	legend(f);
	html_write_ladder(f, h);
	fputs("</section>\n", f);
	if (!h->capture_only) {
		html_write_rings(f, h);
		html_write_requests(f, h);
	}
	if (h->two_shapes)
		html_two_shapes(f);
	packet_details(f, h);
	if (!h->capture_only)
		summary(f, h);
	fputs("<script>", f);
	fputs(script, f);
	fputs("</script>\n</body></html>\n", f);
}

int html_commit(struct html_report *h, char *err, size_t cap)
{
	int rc = 0, e = 0;

	if (h->oom) {
		e = ENOMEM;
	} else {
		page(h->f, h);
		if (fflush(h->f) || ferror(h->f))
			e = errno ? errno : EIO;
	}
	if (fclose(h->f) && !e)
		e = errno ? errno : EIO;
	h->f = NULL;
	if (!e && rename(h->tmp, h->path))
		e = errno;
	if (e) {
		snprintf(err, cap, "cannot write %s: %s", h->path, strerror(e));
		unlink(h->tmp);
		rc = -1;
	}
	free_report(h);
	return rc;
}
