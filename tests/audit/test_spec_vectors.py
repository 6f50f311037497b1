"""docs/audit.md's test vectors verify, every intermediate value in them recomputes, and the seed's deal follows
from the specification's own words (an independent MT19937 written from docs/audit.md, not Python's)."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import random
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from serving import served

import torres_rules as tr
from torres_audit import merkle
from torres_audit.note import Checkpoint, Verifier, open_checkpoint, open_note
from torres_audit.verify import verify_text

from .spec_vectors import LOG_KEY, OUT, vectors

SPEC = OUT.parent / "audit.md"


def committed(name: str) -> str:
    return (OUT / name).read_text(encoding="utf-8")


def intermediate() -> dict[str, Any]:
    return dict(json.loads(committed("intermediate.json")))


def test_the_committed_vectors_are_what_the_code_makes() -> None:
    """Byte for byte: a change to hashing, signing or the record format shows up here first."""
    for name, text in vectors().items():
        assert committed(name) == text, f"docs/audit-vectors/{name} is stale: run python tests/audit/spec_vectors.py"


def test_the_vector_record_verifies_offline(tmp_path: Path) -> None:
    keys = [Verifier.from_vkey(committed("game.vkey")), Verifier.from_vkey(committed("log.vkey"))]
    report = verify_text(committed("record.json"), keys=keys, checkpoint=committed("checkpoint.txt"))
    assert report.ok and all(check.status == "ok" for check in report.checks), report.text()
    done = subprocess.run(
        [sys.executable, "-m", "torres_audit", "verify", str(OUT / "record.json"), "--key", str(OUT / "game.vkey"),
         "--key", str(OUT / "log.vkey"), "--checkpoint", str(OUT / "checkpoint.txt")],
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.endswith("VERIFIED\n"), done.stdout + done.stderr


def test_every_intermediate_hash_recomputes() -> None:
    data = intermediate()
    record = json.loads(committed("record.json"))
    prev = "0" * 64
    for step, event in zip(data["events"], record["events"], strict=True):
        content = {k: event[k] for k in ("version", "type", "payload", "schema_version", "created_at", "command_id")}
        content["game_id"] = record["game_id"]
        # The canonical form, by its definition: sorted keys, no spaces, UTF-8 as is.
        assert step["canonical_content"] == json.dumps(content, sort_keys=True, separators=(",", ":"),
                                                       ensure_ascii=False)
        assert step["content_hash"] == hashlib.sha256(step["canonical_content"].encode()).hexdigest()
        assert step["prev_hash"] == prev == event["prev_hash"]
        assert step["chain_input"] == prev + step["content_hash"]
        assert step["hash"] == hashlib.sha256(step["chain_input"].encode()).hexdigest() == event["hash"]
        prev = step["hash"]
    assert record["head"] == {"version": len(record["events"]), "hash": prev}
    assert data["seed"]["commitment"] == hashlib.sha256(data["seed"]["seed"].encode()).hexdigest()
    note, _ = open_note(data["head"]["note"], [Verifier.from_vkey(data["keys"]["game"]["vkey"])])
    assert note.text == data["head"]["text"]
    m = data["merkle"]
    leaves = [leaf.encode() for leaf in m["leaves"]]
    assert m["leaf_hashes"] == [hashlib.sha256(b"\x00" + leaf).hexdigest() for leaf in leaves]
    node = hashlib.sha256(b"\x01" + bytes.fromhex(m["leaf_hashes"][0]) + bytes.fromhex(m["leaf_hashes"][1]))
    assert m["node_0_1"] == node.hexdigest()
    root = hashlib.sha256(b"\x01" + node.digest() + bytes.fromhex(m["leaf_hashes"][2])).hexdigest()
    assert m["root"] == root and m["inclusion_proof_of_leaf_2"] == [m["node_0_1"]]
    checkpoint, _ = open_checkpoint(m["checkpoint"], [Verifier.from_vkey(data["keys"]["log"]["vkey"])])
    assert checkpoint.root.hex() == root and checkpoint.size == 3
    assert m["leaves"][2] == data["head"]["text"]
    merkle.verify_inclusion(2, 3, bytes.fromhex(m["leaf_hashes"][2]), [node.digest()], bytes.fromhex(root))


def test_the_specification_quotes_the_vectors() -> None:
    """docs/audit.md shows the vector's key values inline; they must be the committed ones."""
    data, spec = intermediate(), SPEC.read_text(encoding="utf-8")
    for value in (data["seed"]["seed"], data["seed"]["commitment"], data["events"][0]["content_hash"],
                  data["events"][0]["hash"], data["events"][-1]["hash"], data["merkle"]["root"],
                  data["keys"]["game"]["vkey"], " ".join(str(word) for word in data["seed"]["mt19937_key"])):
        assert value in spec, value


# -- the seed, from the specification's words ------------------------------------------------------------------

class MT19937:
    """Written from docs/audit.md, "The seed" (itself MT19937 as published by Matsumoto and Nishimura, 2002)."""

    def __init__(self, seed: int) -> None:
        key = [(seed >> (32 * i)) & 0xFFFFFFFF for i in range(max(1, (seed.bit_length() + 31) // 32))]
        mt = [0] * 624
        mt[0] = 19650218
        for i in range(1, 624):
            mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        i, j = 1, 0
        for _ in range(max(624, len(key))):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525)) + key[j] + j) & 0xFFFFFFFF
            i, j = i + 1, j + 1
            if i >= 624:
                mt[0], i = mt[623], 1
            if j >= len(key):
                j = 0
        for _ in range(623):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
            i += 1
            if i >= 624:
                mt[0], i = mt[623], 1
        mt[0] = 0x80000000
        self.mt, self.index = mt, 624

    def next32(self) -> int:
        if self.index >= 624:
            mt = self.mt
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def below(self, n: int) -> int:
        k = n.bit_length()
        while True:
            r = self.next32() >> (32 - k)
            if r < n:
                return r


def deal(seed: int, players: int, edition: str, master: bool) -> dict[str, Any]:
    """Start player, master card and decks as docs/audit.md derives them, in its order of draws."""
    rng = MT19937(seed)
    start = rng.below(players) if edition == "yucata" else 0
    card = tr.MASTER_CARDS[rng.below(len(tr.MASTER_CARDS))] if master else None
    decks = deck = None
    deck_mode = "hand" if master else "common" if edition == "ravensburger" else "personal"
    if deck_mode == "personal":
        decks = []
        for _ in range(players):
            pool, drawn = list(tr.CARD_KINDS), []
            for i in range(len(pool)):
                j = rng.below(len(pool) - i)
                drawn.append(pool[j])
                pool[j] = pool[len(pool) - i - 1]
            decks.append(drawn)
    elif deck_mode == "common":
        deck = list(tr.CARD_KINDS) * 4
        for i in range(len(deck) - 1, 0, -1):
            j = rng.below(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
    return {"start_player": start, "master_card": card, "decks": decks, "deck": deck}


@pytest.mark.parametrize("edition", ["rio_grande", "ravensburger", "yucata"])
@pytest.mark.parametrize("master", [False, True])
def test_the_deal_follows_from_the_seed_as_specified(edition: str, master: bool) -> None:
    rng = random.Random(f"{edition}{master}")
    seeds = [0, 1, 2**32 - 1, 2**32, 2**128 - 1, *(rng.getrandbits(128) for _ in range(20))]
    for seed in seeds:
        for players in (2, 3, 4):
            position = tr.new_game(players=players, seed=seed, edition=edition, master=master).to_position()
            expected = deal(seed, players, edition, master)
            assert {k: position[k] for k in expected} == expected, (seed, players)


def test_the_vector_seed_deals_the_recorded_decks() -> None:
    seed = intermediate()["seed"]
    assert deal(int(seed["seed"]), 2, "rio_grande", False) == {k: seed[k] for k in ("start_player", "master_card",
                                                                                       "decks", "deck")}


def test_the_verifier_needs_nothing_of_the_game_service() -> None:
    """torres_audit installs alone (rules engine + cryptography): with the service's packages unimportable, the
    command line still verifies the vectors."""
    blocked = ("torres_game", "torres_service", "flask", "psycopg", "marshmallow", "gevent")
    code = ("import runpy, sys\n"
            f"for name in {blocked!r}: sys.modules[name] = None\n"
            "sys.argv = ['torres_audit', 'verify', sys.argv[1], '--key', sys.argv[2], '--key', sys.argv[3]]\n"
            "runpy.run_module('torres_audit', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code, str(OUT / "record.json"), str(OUT / "game.vkey"),
                           str(OUT / "log.vkey")], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.endswith("VERIFIED\n"), done.stdout + done.stderr


def consistency_vectors() -> dict[str, Any]:
    return dict(json.loads(committed("consistency.json")))


def mth(leaves: list[bytes]) -> bytes:
    """RFC 9162 section 2.1.1's MTH, written here from the RFC, not taken from torres_audit.merkle."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def test_the_consistency_vectors_verify_against_roots_computed_from_the_rfc() -> None:
    data = consistency_vectors()
    leaves = [leaf.encode() for leaf in data["leaves"]]
    assert leaves[2].decode() == intermediate()["head"]["text"]  # record.json's head is leaf 2
    checkpoint, _ = open_checkpoint(committed("checkpoint-7.txt"), [Verifier.from_vkey(committed("log.vkey"))])
    assert committed("checkpoint-7.txt") == data["checkpoint"] and checkpoint.root == mth(leaves)
    assert checkpoint.size == len(leaves) == 7
    inclusion = data["inclusion_of_leaf_2"]
    merkle.verify_inclusion(2, 7, merkle.leaf_hash(leaves[2]), [base64.b64decode(n) for n in inclusion["proof"]],
                            checkpoint.root)
    assert [entry["first"] for entry in data["consistency"]] == list(range(1, 8))
    for entry in data["consistency"]:
        first_root, second_root = (base64.b64decode(entry[name]) for name in ("first_root", "second_root"))
        assert first_root == mth(leaves[:entry["first"]]) and second_root == mth(leaves)
        proof = [base64.b64decode(node) for node in entry["proof"]]
        merkle.verify_consistency(entry["first"], entry["second"], proof, first_root, second_root)
        if proof:
            with pytest.raises(merkle.ProofError):
                merkle.verify_consistency(entry["first"], entry["second"], proof[:-1], first_root, second_root)


def log_server(leaves: list[bytes]) -> http.server.ThreadingHTTPServer:
    """A transparency log of the test's own on loopback: the two proof endpoints of docs/audit.md section 13,
    answered from ``leaves`` by the RFC 9162 functions the game service answers with."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            body: dict[str, Any] | None = None
            if url.path == "/v1/audit/proof/inclusion":
                size = int(query["tree_size"])
                hashes = [merkle.leaf_hash(leaf).hex() for leaf in leaves[:size]]
                if query["leaf_hash"] in hashes:
                    index = hashes.index(query["leaf_hash"])
                    body = {"leaf_index": index, "tree_size": size, "leaf_hash": query["leaf_hash"],
                            "proof": [base64.b64encode(n).decode()
                                      for n in merkle.inclusion_proof(index, leaves[:size])]}
            elif url.path == "/v1/audit/proof/consistency":
                first, second = int(query["first"]), int(query["second"])
                body = {"first": first, "second": second, "proof": [
                    base64.b64encode(n).decode() for n in merkle.consistency_proof(first, leaves[:second])]}
            data = json.dumps(body).encode()
            self.send_response(404 if body is None else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)


def verify_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torres_audit", "verify", str(OUT / "record.json"), "--key", str(OUT / "game.vkey"),
         "--key", str(OUT / "log.vkey"), *args], capture_output=True, text=True, timeout=60, check=False)


def test_a_checkpoint_of_another_size_is_checked_with_proofs_the_cli_fetches_for_that_size(tmp_path: Path) -> None:
    """The record's proof is for the 3-leaf tree; a witness hands the auditor the 7-leaf checkpoint. With --url
    the verifier fetches the head's proof at size 7 and the consistency proof 3 -> 7 and checks both; a log that
    answers from a forked tree (an earlier leaf replaced, the head still at leaf 2) is caught by the latter."""
    leaves = [leaf.encode() for leaf in consistency_vectors()["leaves"]]
    later = str(OUT / "checkpoint-7.txt")
    alone = verify_cli("--checkpoint", later)
    assert alone.returncode == 1 and "fetch a proof for size 7 (--url)" in alone.stdout, alone.stdout + alone.stderr
    with served(log_server(leaves)) as url:
        done = verify_cli("--checkpoint", later, "--url", url)
    assert done.returncode == 0 and done.stdout.endswith("VERIFIED\n"), done.stdout + done.stderr
    assert "the head is leaf 2 of torres.invalid/test-vector-log at tree size 7" in done.stdout, done.stdout
    forked = [b"a rewritten first game\n", *leaves[1:]]
    fork_checkpoint = tmp_path / "fork-7.txt"
    fork_checkpoint.write_text(Checkpoint(LOG_KEY.name, 7, mth(forked)).sign(LOG_KEY), encoding="utf-8")
    with served(log_server(forked)) as url:
        lied = verify_cli("--checkpoint", str(fork_checkpoint), "--url", url)
    assert lied.returncode == 1 and "REFUSED at version 12: the checkpoint given does not hold this head" in \
        lied.stdout and "consistency proof" in lied.stdout, lied.stdout + lied.stderr
