"""docker-compose.yml, for users with Docker (no Docker engine runs here, so its fields are checked)."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_file_has_the_documented_fields():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == "neo4j:5.26-community"
    assert set(neo4j["ports"]) == {"127.0.0.1:7687:7687", "127.0.0.1:7474:7474"}
    volume = neo4j["volumes"][0].split(":")[0]
    assert volume in compose["volumes"], "the data volume must be a named volume"
    assert neo4j["env_file"] == ".env"
    test = " ".join(neo4j["healthcheck"]["test"])
    assert "cypher-shell" in test and "RETURN 1" in test


def test_env_example_sets_the_auth_compose_reads():
    lines = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    user, password = lines["NEO4J_AUTH"].split("/", 1)
    assert user == "neo4j" and len(password) >= 8
    assert lines["NEO4J_PASSWORD"] == password
    assert {"NEO4J_URI", "NEO4J_USER", "NEO4J_DATABASE"} <= set(lines)
