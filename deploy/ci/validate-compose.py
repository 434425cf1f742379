#!/usr/bin/env python3
"""Validates a Compose file against the Compose specification's JSON schema.

    python3 deploy/ci/validate-compose.py <compose-spec.json> <docker-compose.yml>

Does what `docker compose config` does before it checks the schema, without Docker: reads
the YAML with anchors and `<<` merge keys resolved, interpolates `${VAR}`, `${VAR:-default}`,
`${VAR-default}` (and the `:?`/`?` forms) from the environment, then validates the result with
the draft 2020-12 schema that compose-go embeds, including its `duration` format
(Go durations such as 10s or 1m30s). Prints every error with its path; exit 1 when invalid.
"""
import json
import os
import re
import sys

import jsonschema
import yaml

# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?message}, ${NAME?message}, $NAME, $$
VARIABLE = re.compile(
    r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))"
)
GO_DURATION = re.compile(r"^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$")


def interpolate_string(value):
    def substitute(match):
        escaped, name, operator, argument, bare = match.groups()
        if escaped:
            return "$"
        name = name or bare
        current = os.environ.get(name)
        if operator in (":-", ":?"):
            missing = not current
        else:
            missing = current is None
        if not missing:
            return current
        if operator in (":-", "-"):
            return interpolate_string(argument)
        if operator in (":?", "?"):
            raise ValueError(f"required variable {name} is missing: {argument}")
        return ""

    return VARIABLE.sub(substitute, value)


def interpolate(node):
    if isinstance(node, dict):
        return {key: interpolate(value) for key, value in node.items()}
    if isinstance(node, list):
        return [interpolate(value) for value in node]
    if isinstance(node, str):
        return interpolate_string(node)
    return node


def main():
    if len(sys.argv) != 3:
        print("usage: validate-compose.py <compose-spec.json> <docker-compose.yml>", file=sys.stderr)
        return 2
    schema_path, compose_path = sys.argv[1:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    try:
        with open(compose_path, encoding="utf-8") as f:
            # SafeLoader resolves anchors, aliases and `<<` merge keys as Compose does.
            document = interpolate(yaml.safe_load(f))
    except (yaml.YAMLError, ValueError) as error:
        print(f"{compose_path}: {error}", file=sys.stderr)
        return 1

    checker = jsonschema.FormatChecker()
    checker.checks("duration")(lambda value: not isinstance(value, str) or bool(GO_DURATION.match(value)))
    validator = jsonschema.Draft202012Validator(schema, format_checker=checker)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    for error in errors:
        where = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        print(f"{compose_path}: {where}: {error.message}", file=sys.stderr)
    if errors:
        return 1
    services = len(document.get("services") or {})
    print(f"validate-compose: {compose_path} is valid ({services} services)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
