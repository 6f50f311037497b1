"""The axe-core scan of a page (axe-playwright-python, which carries axe-core's own script: no download)."""

from __future__ import annotations

from typing import Any

#: What a scan may not find: axe-core's two highest impacts.
BLOCKING = ("serious", "critical")


def serious_violations(page: Any) -> list[str]:
    """axe-core's violations of impact serious or critical on the page as it is now, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} -- {[n['target'] for n in v['nodes']][:5]}"
            for v in results.response["violations"] if v["impact"] in BLOCKING]
