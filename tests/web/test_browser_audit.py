"""The replay view checks the game record in the browser
(clients/web/js/audit.js: the chain, the head, the Ed25519 signature, the seed commitment, the result and the
inclusion proof against the log's checkpoint), and refuses a tampered record naming the problem's version, as
the offline verifier does. Chromium through Playwright, against the `make run` stack."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from game_http import play_first_legal

from torres_audit.note import Verifier
from torres_audit.verify import verify_text

from .conftest import Console

pytestmark = pytest.mark.timeout(300)

VECTORS = Path(__file__).resolve().parents[2] / "docs" / "audit-vectors"
ALL_CHECKS = ["format", "chain", "head", "signature", "seed", "replay", "result", "inclusion"]


def finished_game(stack: dict[str, str]) -> tuple[str, str]:
    """A public two-player game with three setup moves, then abandoned by the portal (over: a full record with its
    seed), once the transparency log holds its head. Returns (game id, the record's text)."""
    api = httpx.Client(base_url=stack["game"], headers={"X-API-Key": stack["key"]})
    game = api.post("/v1/games", json={"seats": [{"kind": "human", "player_id": "ann"},
                                                 {"kind": "human", "player_id": "ben"}]}).json()
    gid = game["game_id"]
    for n in range(3):
        play_first_legal(api, gid, [s["token"] for s in game["seats"]], f"audit-setup-{n}")
    assert api.post(f"/v1/games/{gid}/abandon", json={"reason": "browser audit test"}).status_code == 201
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        text = api.get(f"/v1/games/{gid}/record").text
        if json.loads(text)["inclusion"] is not None:
            return gid, text
        time.sleep(0.2)
    raise AssertionError("the sequencer did not integrate the game's head within 15 s")


def open_replay(new_page: Any, stack: dict[str, str], gid: str) -> Any:
    page = new_page()
    page.goto(stack["play"].split("#")[0] + f"#game={gid}&replay=1")
    page.wait_for_selector("#browser-audit[data-state='ok'], #browser-audit[data-state='refused'], "
                           "#browser-audit[data-state='error']")
    return page


def checks(page: Any) -> dict[str, str]:
    return dict(page.eval_on_selector_all("#browser-audit-checks li",
                                          "els => els.map(e => [e.dataset.check, e.dataset.status])"))


def test_a_finished_games_replay_verifies_its_record_in_the_browser(stack: dict[str, str], new_page: Any,
                                                                    console: Console) -> None:
    gid, text = finished_game(stack)
    published = httpx.get(f"{stack['game']}/.well-known/torres-audit-key").text
    keys = [Verifier.from_vkey(line) for line in published.split()]
    assert verify_text(text, keys=keys).ok  # the offline verifier agrees on this record

    page = open_replay(new_page, stack, gid)
    box = page.locator("#browser-audit")
    assert box.get_attribute("data-state") == "ok", box.inner_text()
    assert page.inner_text("#browser-audit-verdict").startswith("✔ VERIFIED in this browser")
    assert checks(page) == {**{name: "ok" for name in ALL_CHECKS}, "replay": "skip"}
    assert "python -m torres_audit verify" in page.inner_text("#browser-audit-not-checked")
    assert "same server" in page.inner_text("#browser-audit-keys")
    assert "leaf" in page.inner_text("#browser-audit-checks li[data-check='inclusion']")
    assert page.locator("#verify").is_visible()  # the server's own /verify badge stays beside it
    assert console.unexpected() == []


def test_a_record_with_one_flipped_byte_is_refused_with_its_version(stack: dict[str, str], new_page: Any,
                                                                   console: Console) -> None:
    gid, text = finished_game(stack)
    doc = json.loads(text)
    square = doc["events"][1]["payload"]["action"]["at"]  # event 2: the first start knight, e.g. "D1"
    at = text.index(f'"{square}"', text.index('"events"')) + len(square)  # its digit, inside event 2's payload
    tampered = text[:at] + ("2" if text[at] != "2" else "3") + text[at + 1:]
    assert len(tampered) == len(text) and sum(a != b for a, b in zip(tampered, text, strict=True)) == 1
    offline = verify_text(tampered).first_problem
    assert offline is not None and offline.version == 2

    page = new_page()

    def serve_tampered(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=tampered)

    page.route(f"**/v1/games/{gid}/record", serve_tampered)
    page.goto(stack["play"].split("#")[0] + f"#game={gid}&replay=1")
    page.wait_for_selector("#browser-audit[data-state='refused']")
    verdict = page.inner_text("#browser-audit-verdict")
    assert verdict == f"✘ REFUSED at version {offline.version}: {offline.reason}"  # as the CLI words it
    assert "hash mismatch" in verdict
    assert checks(page)["chain"] == "FAIL"
    assert checks(page)["signature"] == "ok"  # the head is untouched: only the chain gives the edit away
    assert console.unexpected() == []


def test_audit_js_agrees_with_the_committed_test_vectors(stack: dict[str, str], new_page: Any,
                                                         console: Console) -> None:
    """audit.js's canonical JSON, content and chain hashes, head statement, Merkle leaves, root and proof are the
    values of docs/audit-vectors/intermediate.json, and it verifies record.json with the vectors' keys."""
    vectors = json.loads((VECTORS / "intermediate.json").read_text())
    arg = {
        "vectors": vectors,
        "record": (VECTORS / "record.json").read_text(),
        "checkpoint": (VECTORS / "checkpoint.txt").read_text(),
        "keys": [(VECTORS / "game.vkey").read_text().strip(), (VECTORS / "log.vkey").read_text().strip()],
        "numbers": '{"i":60,"f":60.0,"z":0.0,"n":-0.5,"s":1e-05,"t":0.0001,"b":1E16,"c":1.5e20,'
                   '"d":123456789012345678901234567890,"e":1e15}',
    }
    page = new_page()
    page.goto(stack["play"])
    got = page.evaluate("""async (arg) => {
        const a = await import(new URL('js/audit.js', location.href).href);
        const record = a.parseKeepingNumbers(arg.record);
        const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
        const events = [];
        for (const e of record.events) {
          const canonical = a.canonicalContent(record.game_id, e);
          const content = await a.contentHash(record.game_id, e);
          events.push({ version: Number(e.version), canonical, content, chain_input: e.prev_hash + content,
                        hash: await a.chainHash(e.prev_hash, content) });
        }
        const leaves = [];
        for (const leaf of arg.vectors.merkle.leaves) leaves.push(await a.leafHash(new TextEncoder().encode(leaf)));
        const node01 = await a.nodeHash(leaves[0], leaves[1]);
        const root = await a.nodeHash(node01, leaves[2]);
        const proven = await a.rootFromInclusionProof(2, 3, leaves[2], [node01]);
        const head = arg.vectors.head.text;
        const report = await a.auditRecord(arg.record,
          { checkpoint: arg.checkpoint, logKeys: arg.keys, keySource: 'the test' });
        return { events, leaves: leaves.map(hex), node01: hex(node01), root: hex(root), proven: hex(proven),
                 head: a.headText(record.game_id, 12, record.head.hash, record.status) === head,
                 seed: await a.sha256Hex(record.seed),
                 numbers: a.canonicalJson(a.parseKeepingNumbers(arg.numbers)),
                 report };
    }""", arg)
    for mine, want in zip(got["events"], vectors["events"], strict=True):
        assert mine["version"] == want["version"]
        assert mine["canonical"] == want["canonical_content"]
        assert mine["content"] == want["content_hash"]
        assert mine["chain_input"] == want["chain_input"]
        assert mine["hash"] == want["hash"]
    assert got["leaves"] == vectors["merkle"]["leaf_hashes"]
    assert got["node01"] == vectors["merkle"]["node_0_1"]
    assert got["root"] == got["proven"] == vectors["merkle"]["root"]
    assert got["head"] is True
    assert got["seed"] == vectors["seed"]["commitment"]
    # numbers keep the record's distinction and print as Python's json.dumps does
    assert got["numbers"] == json.dumps(json.loads(arg["numbers"]), sort_keys=True, separators=(",", ":"))
    report = got["report"]
    assert report["ok"] and report["first_problem"] is None, report
    assert {c["name"]: c["status"] for c in report["checks"]} == {**{n: "ok" for n in ALL_CHECKS}, "replay": "skip"}
    assert console.unexpected() == []


def test_a_record_proven_against_an_older_tree_is_checked_by_consistency(stack: dict[str, str], new_page: Any,
                                                                         console: Console) -> None:
    """The record's proof is against the checkpoint of its day; the log has grown since: the page checks the
    consistency proof from that tree to the latest checkpoint (RFC 9162 2.1.4.2) instead of refusing."""
    gid, old_text = finished_game(stack)
    finished_game(stack)  # another game's head makes the tree grow
    old_size = json.loads(old_text)["inclusion"]["tree_size"]
    latest = httpx.get(f"{stack['game']}/v1/audit/checkpoint").text
    assert int(latest.split("\n")[1]) > old_size

    page = new_page()
    page.route(f"**/v1/games/{gid}/record", lambda route: route.fulfill(response=route.fetch(), body=old_text))
    page.goto(stack["play"].split("#")[0] + f"#game={gid}&replay=1")
    page.wait_for_selector("#browser-audit[data-state='ok'], #browser-audit[data-state='refused']")
    inclusion = page.inner_text("#browser-audit-checks li[data-check='inclusion']")
    assert page.get_attribute("#browser-audit", "data-state") == "ok", page.inner_text("#browser-audit")
    assert f"tree size {old_size}" in inclusion and "consistency proof checked" in inclusion
    assert console.unexpected() == []


def test_a_running_games_record_verifies_its_chain_and_signature_only(stack: dict[str, str], new_page: Any,
                                                                      console: Console) -> None:
    """A seat's record of a running game: the chain and the signed head are checked; the seed is still secret,
    there is no result and no inclusion proof yet, and the page says so rather than failing."""
    api = httpx.Client(base_url=stack["game"], headers={"X-API-Key": stack["key"]})
    game = api.post("/v1/games", json={"seats": [{"kind": "human", "player_id": "cay"},
                                                 {"kind": "human", "player_id": "dov"}]}).json()
    token = game["seats"][0]["token"]
    page = new_page()
    page.goto(stack["play"].split("#")[0] + f"#game={game['game_id']}&token={token}&replay=1")
    page.wait_for_selector("#browser-audit[data-state='ok'], #browser-audit[data-state='refused']")
    assert page.get_attribute("#browser-audit", "data-state") == "ok", page.inner_text("#browser-audit")
    assert checks(page) == {"format": "ok", "chain": "ok", "head": "ok", "signature": "ok", "seed": "skip",
                            "replay": "skip", "result": "skip", "inclusion": "skip"}
    assert console.unexpected() == []


def test_audit_js_takes_no_checkpoint_from_the_record_key_or_a_key_not_named_as_the_log(
        stack: dict[str, str], new_page: Any, console: Console) -> None:
    """docs/audit.md sections 8 and 9 in the browser too: the vectors' record given a one-leaf "log" signed with
    the service's (record) key, and its checkpoint signed by the record key under the log's name; both keys
    trusted, both refused at the inclusion check, as the CLI refuses them."""
    from audit.spec_vectors import GAME_KEY, LOG_KEY
    from audit.test_strict_records import resigned, vector

    from torres_audit import merkle
    from torres_audit.note import Checkpoint
    from torres_audit.record import inclusion_json, parse

    keys = [GAME_KEY.verifier(), LOG_KEY.verifier()]
    forged = []
    for origin in (GAME_KEY.name, LOG_KEY.name):
        record = resigned(vector())
        leaf = parse(record).head_text().encode()
        record["inclusion"] = inclusion_json(log_key=GAME_KEY.verifier().vkey(), leaf_index=0, tree_size=1, proof=[],
                                             checkpoint=Checkpoint(origin, 1, merkle.root([leaf])).sign(GAME_KEY))
        assert not verify_text(json.dumps(record), keys=keys).ok  # the CLI refuses it
        forged.append(json.dumps(record))
    page = new_page()
    page.goto(stack["play"])
    reports = page.evaluate("""async (arg) => {
        const a = await import(new URL('js/audit.js', location.href).href);
        const out = [];
        for (const text of arg.records) {
          out.push(await a.auditRecord(text, { logKeys: arg.keys, keySource: 'the test' }));
        }
        return out;
    }""", {"records": forged, "keys": [key.vkey() for key in keys]})
    for report in reports:
        statuses = {c["name"]: c["status"] for c in report["checks"]}
        assert not report["ok"] and statuses["inclusion"] == "FAIL" and statuses["signature"] == "ok", report
    assert "the key that signed the game's head" in json.dumps(reports[0])
    assert "no trusted key named as the log" in json.dumps(reports[1])
    assert console.unexpected() == []
