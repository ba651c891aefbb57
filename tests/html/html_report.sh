#!/usr/bin/env bash
# wqe run/demo/dissect --html: the pages render in headless Chromium, not
# blank, no console errors, one data-packet element per frame of the
# capture written in the same run (counted by wqe dissect); a hostile
# capture cannot inject markup. A missing browser fails, it never skips.
# usage: html_report.sh WQE PYTHON EXAMPLES_DIR
set -euo pipefail
wqe=$1 py=$2 ex=$3
here=$(cd "$(dirname "$0")" && pwd)
chromium=$(command -v chromium || true)
[ -n "$chromium" ] || { echo "FAIL: chromium not installed (scripts/deps.sh installs it)"; exit 1; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
frames() { "$wqe" dissect "$1" | sed -n 's/^\([0-9]*\) frames:.*/\1/p'; }

"$wqe" demo -q --pcap "$t/demo.pcap" --html "$t/demo.html" >/dev/null
"$py" "$here/check_page.py" "$chromium" "$t/demo.html" "$(frames "$t/demo.pcap")" ${WQE_HTML_SHOT:+"$WQE_HTML_SHOT"}
for s in 14-loss-retry 07-fence 05-atomics; do
	"$wqe" run -q --pcap "$t/$s.pcap" --html "$t/$s.html" "$ex/$s.wqe"
	"$py" "$here/check_page.py" "$chromium" "$t/$s.html" "$(frames "$t/$s.pcap")"
done
# the rxe format's WQE diagrams
"$wqe" run -q --format rxe --pcap "$t/rxe.pcap" --html "$t/rxe.html" "$ex/02-send-recv.wqe"
grep -q 'progress' "$t/rxe.html" || { echo "FAIL: no rxe segments in the rxe report"; exit 1; }
# dissect --html of the loss capture
rc=0; "$wqe" dissect --html "$t/cap.html" "$t/14-loss-retry.pcap" >/dev/null || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: dissect --html exit $rc"; exit 1; }
"$py" "$here/check_page.py" "$chromium" "$t/cap.html" "$(frames "$t/14-loss-retry.pcap")"
# A hostile capture: markup in every byte a frame could carry.
"$py" - "$t/evil.pcap" <<'PY'
import struct, sys
evil = b'<script>alert(1)</script><img src=x onerror=alert(2)>"\'&'
frames = [b'\xff' * 6 + b'\x00' * 6 + b'\x08\x00' + evil,           # not IP
          b'\xff' * 12 + b'\x86\xdd' + evil * 3,                    # truncated IPv6
          b'\x00' * 12 + evil[:2] + evil]                           # odd EtherType
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, fr in enumerate(frames):
        f.write(struct.pack('<IIII', i, 0, len(fr), len(fr)) + fr)
PY
"$wqe" dissect --html "$t/evil.html" "$t/evil.pcap" >/dev/null || true
[ -s "$t/evil.html" ] || { echo "FAIL: no report of the hostile capture"; exit 1; }
if grep -qiE '<script>alert|<img|onerror=alert' "$t/evil.html"; then
	echo "FAIL: the hostile capture injected markup"; exit 1
fi
"$py" "$here/check_page.py" "$chromium" "$t/evil.html" 3
echo "html_report: ok"
