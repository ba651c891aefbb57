#!/usr/bin/env python3
"""Renders an HTML report in headless Chromium and checks it: a screenshot
that is not blank (pixel variance of the decoded PNG), no console errors,
and as many data-packet elements as the capture has frames.
usage: check_page.py CHROMIUM PAGE.html FRAMES [SCREENSHOT.png]"""
import os, re, shutil, struct, subprocess, sys, tempfile, zlib


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA PNG (what Chromium writes): rows of bytes."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w, h, bpp = 8, b'', 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and ctype in (2, 6), 'unexpected PNG type'
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
    raw = zlib.decompress(idat)
    stride, prev, rows = w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    chromium, page, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
    keep = sys.argv[4] if len(sys.argv) > 4 else None
    html = open(page, encoding='utf-8').read()
    n = len(re.findall(r'<g [^>]*data-packet="\d+"', html))
    if n != frames:
        sys.exit('FAIL %s: %d data-packet elements, the capture has %d frames' % (page, n, frames))
    if re.search(r'<(link|img|iframe)\b|src="http|href="http', html):
        sys.exit('FAIL %s: the page refers to something outside itself' % page)
    tmp = tempfile.mkdtemp(prefix='wqe-html-')
    try:
        shot = os.path.join(tmp, 'shot.png')
        r = subprocess.run([chromium, '--headless', '--no-sandbox', '--disable-gpu',
                            '--user-data-dir=' + os.path.join(tmp, 'ud'), '--hide-scrollbars',
                            '--enable-logging=stderr', '--v=0', '--window-size=1400,1800',
                            '--screenshot=' + shot, 'file://' + os.path.abspath(page)],
                           capture_output=True, text=True, timeout=60)
        if not os.path.exists(shot):
            sys.exit('FAIL %s: no screenshot (chromium exit %d): %s' % (page, r.returncode, r.stderr[-2000:]))
        errs = [l for l in r.stderr.splitlines() if 'CONSOLE' in l and ('ERROR' in l or 'Uncaught' in l)]
        if errs:
            sys.exit('FAIL %s: console errors:\n%s' % (page, '\n'.join(errs)))
        w, h, bpp, rows = png_pixels(shot)
        vals = [v for row in rows[::8] for v in row[::bpp * 4]]
        mean = sum(vals) / len(vals)
        var = sum((v - mean) ** 2 for v in vals) / len(vals)
        dark = sum(1 for v in vals if v < 128) / len(vals)
        if var < 100 or dark < 0.005:
            sys.exit('FAIL %s: the page renders blank (variance %.1f, dark %.4f)' % (page, var, dark))
        if keep:
            shutil.copyfile(shot, keep)
        print('ok %s: %d packets, %dx%d screenshot, variance %.0f' % (page, n, w, h, var))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
