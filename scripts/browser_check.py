#!/usr/bin/env python3
"""Opens poplar-report pages in headless Chromium: a screenshot of each, the
page's own status line (charts drawn, blank charts, milliseconds from
navigation start to the last chart drawn), and the browser's console, also
while a copy of the page is hovered, dragged, zoomed and clicked.

Fails when a page logs anything to the console (it logs nothing when
all is well, so this catches every JavaScript error), when a chart is blank, or when a
page listed with --budget-ms takes longer than that to draw.

usage: browser_check.py [--budget-ms N] OUT_DIR page.html [page.html...]
Screenshots go to OUT_DIR/<page>.png; a summary line per page goes to stdout.
"""
import os
import re
import subprocess
import sys
import tempfile

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
]
STATUS = re.compile(r'<div id="status" data-status="(\w+)" data-ms="(\d+)" data-charts="(\d+)" data-blank="([^"]*)"')
# Console messages as Chromium logs them ("INFO:CONSOLE:12] ...", older
# versions "CONSOLE(12)]"), all at one level whatever the console method:
# the page logs nothing, so any message is a failure. A network fetch would
# show as a failed load.
CONSOLE = re.compile(r'CONSOLE[(:]\d+\)?\]|Uncaught|net::ERR_')


# Appended to a copy of the page: hovers, drags, wheels, clicks and
# double-clicks every chart, picks a tile, toggles the memory scale and
# resizes, so that event handlers run too; then marks the body.
INTERACT = """<script>
(function () {
  for (const c of document.querySelectorAll("canvas")) {
    const r = c.getBoundingClientRect();
    for (const fx of [0.1, 0.5, 0.9]) for (const fy of [0.1, 0.4, 0.8]) {
      const o = { clientX: r.left + r.width * fx, clientY: r.top + r.height * fy, bubbles: true, deltaY: -100 };
      c.dispatchEvent(new MouseEvent("mousemove", o));
      c.dispatchEvent(new WheelEvent("wheel", o));
      c.dispatchEvent(new MouseEvent("mousedown", o));
      c.dispatchEvent(new MouseEvent("mousemove", { ...o, clientX: o.clientX + 30 }));
      window.dispatchEvent(new MouseEvent("mouseup", o));
      c.dispatchEvent(new MouseEvent("click", o));
      c.dispatchEvent(new MouseEvent("dblclick", o));
    }
    c.dispatchEvent(new MouseEvent("mouseleave", { bubbles: true }));
  }
  const t = document.getElementById("tile-input");
  t.value = "1"; t.dispatchEvent(new Event("change"));
  document.getElementById("memory-limit-scale").click();
  window.dispatchEvent(new Event("resize"));
  document.body.dataset.interacted = "yes";
})();
</script></body>"""


def chromium(args, timeout=120):
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                           capture_output=True, text=True, timeout=timeout)
    return p.stdout, p.stderr


def check(page, out_dir, budget_ms):
    url = "file://" + os.path.abspath(page)
    name = os.path.splitext(os.path.basename(page))[0]
    shot = os.path.join(out_dir, name + ".png")
    problems = []
    dom, err1 = chromium(["--dump-dom", url])
    _, err2 = chromium(["--window-size=1300,2600", f"--screenshot={shot}", url])
    for line in (err1 + err2).splitlines():
        if CONSOLE.search(line):
            problems.append("console: " + line.strip())
    m = STATUS.search(dom)
    if not m:
        problems.append("the page never finished drawing (no status)")
        ms = None
    else:
        status, ms, charts, blank = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if status != "ok" or blank:
            problems.append(f"blank chart(s): {blank}")
        if charts == 0:
            problems.append("no charts drawn")
        if budget_ms is not None and ms > budget_ms:
            problems.append(f"drawn in {ms} ms, over the {budget_ms} ms budget")
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "interact.html")
        with open(page, encoding="utf-8") as f:
            html = f.read()
        with open(copy, "w", encoding="utf-8") as f:
            f.write(html.replace("</body>", INTERACT, 1))
        dom, err3 = chromium(["--dump-dom", "file://" + copy])
    for line in err3.splitlines():
        if CONSOLE.search(line):
            problems.append("console (interacting): " + line.strip())
    if 'data-interacted="yes"' not in dom:
        problems.append("interaction did not complete")
    if not os.path.isfile(shot) or os.path.getsize(shot) == 0:
        problems.append("no screenshot")
    size = os.path.getsize(page)
    print(f"{name}: {size:,} bytes, drawn in {ms} ms, screenshot {shot}"
          + ("" if not problems else "\n  " + "\n  ".join(problems)))
    return not problems


def main(argv):
    budget = None
    if argv[:1] == ["--budget-ms"]:
        budget = int(argv[1])
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir, pages = argv[0], argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    ok = all([check(p, out_dir, budget) for p in pages])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
