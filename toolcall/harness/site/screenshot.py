"""A picture of a page taken by a real browser: the distribution's Chromium, driven by
Playwright, which is never asked to download a browser of its own (docs/DESIGN.md)."""

from __future__ import annotations

from pathlib import Path

#: Where Debian and Ubuntu put Chromium (`apt-get install chromium`).
CHROMIUM = Path("/usr/bin/chromium")
#: The window the picture is taken in: wide enough for the side-by-side tables.
VIEWPORT = {"width": 1280, "height": 960}


class ScreenshotError(RuntimeError):
    """No browser, or no Playwright, to take the picture with; the message says what to do."""


def take(page: Path, target: Path, browser: Path = CHROMIUM) -> None:
    """Open `page` from its file and save what the window shows as a PNG at `target`."""
    if not browser.is_file():
        raise ScreenshotError(
            f"no browser at {browser}: install Chromium (apt-get install chromium), or --browser"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ScreenshotError("Playwright is not installed: pip install -e '.[dev]'") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(browser))
        try:
            window = chromium.new_page(viewport=VIEWPORT)  # type: ignore[arg-type]
            window.goto(page.resolve().as_uri())
            window.screenshot(path=str(target))
        finally:
            chromium.close()
