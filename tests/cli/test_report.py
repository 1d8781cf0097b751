"""``polyjoule report`` end to end: the CLI writes the page, headless Chromium renders it,
and the test checks what the browser rendered (DOM after scripts, screenshot pixels)."""

import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
from matplotlib import image

WORKED = ["gesummv", "--array", "2x2", "--tile", "2,3", "--set", "N0=4,N1=5"]
CHROMIUM = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--window-size=1280,7000"]


def _polyjoule(*args):
    return subprocess.run([sys.executable, "-m", "polyjoule", *args], capture_output=True,
                          text=True, timeout=300)


def _chromium(*args, cwd):
    exe = shutil.which("chromium")
    assert exe, "chromium is not installed (.ci/run installs Debian's chromium package)"
    return subprocess.run([exe, *CHROMIUM, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=180)


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text of the render-check marker."""

    def __init__(self):
        super().__init__()
        self.tags, self.check, self._in_check = [], None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        self._in_check = a.get("id") == "render-check"

    def handle_data(self, data):
        if self._in_check:
            self.check = json.loads(data)
            self._in_check = False

    def count(self, tag, *classes, **attrs):
        return sum(1 for t, a in self.tags if t == tag
                   and set(classes) <= set((a.get("class") or "").split())
                   and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items()))


def _near(pixels: np.ndarray, hex_colour: str, tol: float = 0.08) -> int:
    rgb = np.array([int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5)])
    return int((np.abs(pixels[..., :3] - rgb).max(axis=-1) < tol).sum())


def test_worked_example_rendered_in_chromium(tmp_path: Path):
    r = _polyjoule("report", *WORKED, "-o", str(tmp_path / "r.html"))
    assert r.returncode == 0, r.stderr
    page = tmp_path / "r.html"
    text = page.read_text()
    assert "<link" not in text and "http://" not in text and "https://" not in text
    assert not any(f'{a}="' in text and f'{a}="#' not in text for a in ("src", "href"))

    dom = _chromium("--dump-dom", page.as_uri(), cwd=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    seen = _Elements()
    seen.feed(dom.stdout)
    assert seen.count("div", id="console-error") == 0, "a script error in the page"
    assert seen.count("pre", id="render-check", data_status="ok") == 1, seen.check
    # the paper's worked example: 4 x 5 points, 2 x 3 tiles, 12 FD and 4 ID arrows of S10
    panel = next(p for p in seen.check["panels"] if p["statement"] == "S10")
    assert (panel["points"], panel["tiles"], panel["FD"], panel["ID"]) == (20, 4, 12, 4)
    assert panel["width"] > 100 and seen.check["mathml"] and seen.check["maths"] >= 16
    assert seen.count("line", "arrow", "FD", data_statement="S10") == 12
    assert seen.count("line", "arrow", "ID", data_statement="S10") == 4
    assert seen.count("tr", data_statement="S10") == 1  # the walked-vs-symbolic row
    assert seen.count("svg", "graph") == 1 and seen.count("svg", "bars") == 1

    shot = _chromium(f"--screenshot={tmp_path / 'r.png'}", page.as_uri(), cwd=tmp_path)
    assert shot.returncode == 0, shot.stderr[-2000:]
    png = tmp_path / "r.png"
    assert png.stat().st_size > 50_000
    pixels = image.imread(png)
    assert pixels.shape[:2] == (7000, 1280)
    assert len(np.unique(pixels[::4, ::4, :3].reshape(-1, 3), axis=0)) > 50
    # inside the S10 picture the arrows were painted: FD blue, ID orange, dark points
    x, y, w, h = (round(v) for v in panel["box"])
    picture = pixels[y:y + h, x:x + w]
    blue, orange, dark = (_near(picture, c) for c in ("#1f77b4", "#e8710a", "#1d2430"))
    assert blue > 12 * 60 and orange > 4 * 60 and dark > 20 * 30, (blue, orange, dark)
    assert abs(blue / orange - 3) < 0.3  # 12 FD arrows to 4 ID arrows, all of one length


def test_report_of_a_yaml_kernel_with_a_dataset(tmp_path: Path):
    src = Path(__file__).parents[2] / "src/polyjoule/library/data/kernels/gemm.yaml"
    r = _polyjoule("report", str(src), "--array", "4x4", "--dataset", "MINI", "-o",
                   str(tmp_path / "g.html"))
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "g.html").read_text()
    assert "<math" in text and 'class="figure space"' in text
    assert "differ" not in text.split('id="space"')[1].split("</section>")[0]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path):
    out = str(tmp_path / "x.html")
    cases = [
        ("report", "nosuchkernel", "-o", out),
        ("report", *WORKED[:-1], "N0=4", "-o", out),  # N1 missing
        ("report", "gesummv", "--array", "2x2", "--tile", "1,1", "--set", "N0=4,N1=5", "-o", out),
        ("report", *WORKED, "-o", str(tmp_path / "no" / "such" / "x.html")),
        ("report", *WORKED, "-o", str(tmp_path)),
    ]
    for args in cases:
        r = _polyjoule(*args)
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("polyjoule: error:"), (args, r.stderr)
    assert not list(tmp_path.glob("*.html")) and not list(tmp_path.glob(".*.polyjoule-tmp-*"))
