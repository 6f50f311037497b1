"""k8s/: every overlay renders, every object is valid offline, the policy check passes, and the wiring holds."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from torres_service import serving

from .conftest import ROOT, render, tool

K8S_VERSION = "1.33"  # the oldest Kubernetes minor the manifests are written for
_CRD = yaml.safe_load((ROOT / "k8s" / "schemas" / "keda.sh_scaledobjects.yaml").read_text())
SCALED_OBJECT_SCHEMA = next(v for v in _CRD["spec"]["versions"] if v["name"] == "v1alpha1")["schema"]["openAPIV3Schema"]
GRACEFUL_TIMEOUT: int = serving.GRACEFUL_TIMEOUT.default  # infra/gunicorn.conf.py's graceful_timeout
WORKLOADS = {"game", "matchmaking", "matcher", "ratings", "ai-worker", "ai-sweeper", "webhooks"}
Objects = tuple[str, list[dict[str, Any]]]


def validate(obj: dict[str, Any]) -> None:
    """Built-in kinds against the Kubernetes schemas; KEDA's ScaledObject against its vendored CRD."""
    if obj["apiVersion"] == "keda.sh/v1alpha1" and obj["kind"] == "ScaledObject":
        jsonschema.Draft7Validator(SCALED_OBJECT_SCHEMA).validate(obj)
    else:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def test_every_rendered_object_is_valid(rendered: Objects) -> None:
    _, objects = rendered
    assert objects
    for obj in objects:
        validate(obj)


def test_validation_does_catch_mistakes(rendered: Objects) -> None:
    _, objects = rendered
    deployment = copy.deepcopy(by_kind(objects, "Deployment")["game"])
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGett"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(deployment)
    scaled = copy.deepcopy(by_kind(objects, "ScaledObject")["ai-worker"])
    scaled["spec"]["minReplicaCount"] = "one"
    with pytest.raises(jsonschema.ValidationError):
        validate(scaled)
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):  # an unknown kind is never waved through
        validate({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "x"}})


def test_checkov_policy_check_passes(rendered: Objects, tmp_path: Path) -> None:
    """Skipped checks are justified in `checkov.io/skipN` annotations next to each manifest."""
    overlay, objects = rendered
    checkov = tool("checkov", ROOT / ".tools" / "checkov" / "bin" / "checkov")
    manifest = tmp_path / f"{overlay}.yaml"
    manifest.write_text(yaml.safe_dump_all(objects))
    result = subprocess.run([checkov, "-f", str(manifest), "--framework", "kubernetes", "--compact",
                             "--skip-download", "-o", "json"], capture_output=True, text=True)
    report = json.loads(result.stdout)
    summary = report["summary"]
    failed = [(c["check_id"], c["resource"]) for c in report["results"]["failed_checks"]]
    assert summary["failed"] == 0 and result.returncode == 0, failed
    assert summary["passed"] > 100
    for skipped in report["results"]["skipped_checks"]:
        assert len(skipped["check_result"].get("suppress_comment", "")) > 20, skipped["check_id"]


def test_workloads_are_hardened_and_bounded(rendered: Objects) -> None:
    _, objects = rendered
    deployments = by_kind(objects, "Deployment")
    assert set(deployments) >= WORKLOADS
    for name in WORKLOADS:
        pod = deployments[name]["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["automountServiceAccountToken"] is False
        (container,) = pod["containers"]
        sc = container["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
        assert sc["capabilities"]["drop"] == ["ALL"]
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]) <= set(container["resources"]["limits"])
        if name != "ai-sweeper":  # no port; see the comment in k8s/base/ai-sweeper.yaml
            assert container["livenessProbe"] and container["readinessProbe"], name


def test_probes_hit_the_real_endpoints_and_drain_fits_the_grace_period(rendered: Objects) -> None:
    _, objects = rendered
    deployments = by_kind(objects, "Deployment")
    for name, port in (("game", 8000), ("matchmaking", 8100)):
        pod = deployments[name]["spec"]["template"]["spec"]
        (c,) = pod["containers"]
        assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert c["livenessProbe"]["httpGet"]["path"] == c["startupProbe"]["httpGet"]["path"] == "/healthz"
        assert c["ports"][0]["containerPort"] == port
        assert {"name": "PORT", "value": str(port)} in c["env"]
        # preStop pause + gunicorn's graceful_timeout must fit in the grace period
        pause = int(c["lifecycle"]["preStop"]["exec"]["command"][1])
        assert pod["terminationGracePeriodSeconds"] > pause + GRACEFUL_TIMEOUT
    worker = deployments["ai-worker"]["spec"]["template"]["spec"]
    assert worker["terminationGracePeriodSeconds"] > 30  # the Celery hard time limit of one decision
    assert {"name": "TORRES_AI_METRICS_PORT", "value": "9400"} in worker["containers"][0]["env"]
    assert worker["containers"][0]["livenessProbe"]["httpGet"] == {"path": "/metrics", "port": "metrics"}


def test_autoscaling(rendered: Objects) -> None:
    _, objects = rendered
    hpas = by_kind(objects, "HorizontalPodAutoscaler")
    assert {h["spec"]["scaleTargetRef"]["name"] for h in hpas.values()} == {"game", "matchmaking"}
    (scaled,) = by_kind(objects, "ScaledObject").values()
    assert scaled["spec"]["scaleTargetRef"]["name"] == "ai-worker"
    (trigger,) = scaled["spec"]["triggers"]
    from torres_ai.config import Settings

    assert trigger["type"] == "redis" and trigger["metadata"]["listName"] == Settings.from_env({}).queue
    pdbs = by_kind(objects, "PodDisruptionBudget")
    assert {"game", "matchmaking", "matcher", "ai-worker"} <= set(pdbs)


def test_databases_run_in_the_cluster_only_in_dev(rendered: Objects) -> None:
    overlay, objects = rendered
    stateful = set(by_kind(objects, "StatefulSet"))
    assert stateful == ({"postgres", "redis"} if overlay == "dev" else set())
    assert all(o["metadata"].get("namespace") == f"torres-{overlay}" for o in objects if o["kind"] != "Namespace")
    assert not by_kind(objects, "Secret"), "secret values are never committed"
    config = next(o for name, o in by_kind(objects, "ConfigMap").items() if name.startswith("torres-config"))
    # production's Redis is a master with two replicas under Sentinel: a ticket counts once a replica holds it
    assert config["data"].get("MM_REDIS_WAIT_REPLICAS") == ("1" if overlay == "prod" else None)
    for deployment in by_kind(objects, "Deployment").values():
        refs = deployment["spec"]["template"]["spec"]["containers"][0]["envFrom"]
        assert {"secretRef": {"name": "torres-secrets"}} in refs


def test_every_command_names_a_real_entry_point() -> None:
    """The commands compose and Kubernetes run resolve to modules and WSGI apps of this repository."""
    import importlib.util

    from .conftest import compose

    commands = [s["command"] for s in compose()["services"].values() if isinstance(s.get("command"), list)]
    commands += [c["command"] for o in render("prod") if o["kind"] in ("Deployment", "Job")
                 for c in o["spec"]["template"]["spec"]["containers"]]
    commands += [c["command"] for o in render("prod") if o["kind"] == "CronJob"
                 for c in o["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]]
    checked = 0
    for cmd in commands:
        if cmd[0] == "gunicorn":
            module, _, attr = cmd[-1].partition(":")
            assert importlib.util.find_spec(module) and attr == "app", cmd
            assert (ROOT / cmd[2]).exists()
        elif cmd[0] == "python" and cmd[1] == "-m":
            assert importlib.util.find_spec(cmd[2]), cmd
            if cmd[2] in ("torres_matchmaking", "torres_game", "torres_audit"):
                help_text = subprocess.run([sys.executable, "-m", cmd[2], cmd[3], "--help"], capture_output=True,
                                           text=True, cwd=ROOT)
                assert help_text.returncode == 0, (cmd, help_text.stderr)
        elif cmd[0] == "celery":
            assert importlib.util.find_spec(cmd[2]), cmd
        else:
            continue
        checked += 1
    assert checked >= 12


def test_tenants_file_and_internal_keys_are_wired(rendered: Objects) -> None:
    """The HTTP services read the tenants file from the Secret torres-tenants (a file, re-read on change),
    and so does the webhook worker (the tenants' endpoints and secrets); the matcher and the ratings
    consumer present their own internal keys; no other workload names a tenants file (the AI workers act
    in-process and need none)."""
    _, objects = rendered
    deployments = by_kind(objects, "Deployment")
    for name in ("game", "matchmaking", "webhooks"):
        pod = deployments[name]["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        path = next(e["value"] for e in container["env"] if e["name"] == "TORRES_TENANTS_FILE")
        mount = next(m for m in container["volumeMounts"] if m["name"] == "tenants")
        assert mount["readOnly"] is True and path == f"{mount['mountPath']}/tenants.json"
        volume = next(v for v in pod["volumes"] if v["name"] == "tenants")
        assert volume["secret"]["secretName"] == "torres-tenants" and volume["secret"]["defaultMode"] == 0o440
    keys = {}
    for name in ("matcher", "ratings"):
        (container,) = deployments[name]["spec"]["template"]["spec"]["containers"]
        (ref,) = [e["valueFrom"]["secretKeyRef"] for e in container["env"] if e["name"] == "GAME_SERVICE_API_KEY"]
        assert ref["name"] == "torres-secrets"
        keys[name] = ref["key"]
    assert keys["matcher"] != keys["ratings"]  # each its own credential
    for name, deployment in deployments.items():
        if name not in ("game", "matchmaking", "webhooks"):
            env = deployment["spec"]["template"]["spec"]["containers"][0].get("env", [])
            assert all(e["name"] != "TORRES_TENANTS_FILE" for e in env), name


def test_the_log_monitor_runs_as_an_outside_observer(rendered: Objects) -> None:
    """A CronJob runs `python -m torres_audit monitor` against the game service, hardened like every
    workload, its kept checkpoint on a PersistentVolumeClaim, the pinned vkeys from a ConfigMap, and nothing of
    the operator's secrets (it checks the operator; it needs no database and no key)."""
    _, objects = rendered
    (cron,) = by_kind(objects, "CronJob").values()
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    job = cron["spec"]["jobTemplate"]["spec"]
    pod = job["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsGroup"]  # may write its volume
    (container,) = pod["containers"]
    sc = container["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert {"cpu", "memory"} <= set(container["resources"]["requests"]) <= set(container["resources"]["limits"])
    assert "envFrom" not in container and "env" not in container  # no torres-secrets, no database
    cmd = container["command"]
    assert cmd[:4] == ["python", "-m", "torres_audit", "monitor"]
    args = dict(zip(cmd[4::2], cmd[5::2], strict=True))
    assert args["--url"] == "http://game:8000"
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    state = next(m for m in mounts.values() if args["--state"].startswith(m["mountPath"] + "/"))
    claim = volumes[state["name"]]["persistentVolumeClaim"]["claimName"]
    assert claim in by_kind(objects, "PersistentVolumeClaim") and not state.get("readOnly")
    keys = next(m for m in mounts.values() if args["--key"].startswith(m["mountPath"] + "/"))
    assert keys["readOnly"] is True
    assert volumes[keys["name"]]["configMap"]["name"] == "torres-audit-key"
    assert "torres-audit-key" not in by_kind(objects, "ConfigMap")  # the operator's pinned keys, not ours
    assert "audit-monitor" in by_kind(objects, "NetworkPolicy")


def test_the_log_key_is_the_sequencers_alone(rendered: Objects) -> None:
    """Key custody (docs/audit.md): only the sequencer Deployment reads the Secret with the log's signing key; the
    game pods run no sequencer thread and serve the log with its public key."""
    _, objects = rendered
    readers = set()
    for kind in ("Deployment", "StatefulSet", "Job", "CronJob"):
        for name, obj in by_kind(objects, kind).items():
            spec = obj["spec"]["jobTemplate"]["spec"] if kind == "CronJob" else obj["spec"]
            for container in spec["template"]["spec"]["containers"]:
                refs = {ref.get("secretRef", {}).get("name") for ref in container.get("envFrom", [])}
                if "torres-log-key" in refs:
                    readers.add(name)
    assert readers == {"sequencer"}
    (sequencer,) = by_kind(objects, "Deployment")["sequencer"]["spec"]["template"]["spec"]["containers"]
    assert sequencer["command"] == ["python", "-m", "torres_game", "sequence"]
    (game,) = [c for c in by_kind(objects, "Deployment")["game"]["spec"]["template"]["spec"]["containers"]]
    assert {"name": "TORRES_LOG_INTERVAL", "value": "0"} in game["env"]
