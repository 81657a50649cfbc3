"""Checks the examples of an OpenAPI 3.1 document (read on stdin) against their
schemas: every parameter, request body, JSON answer and answer header must have
one, and each must be valid, formats included. Prints each problem on a line of its own and
the count of examples checked on stderr; exits 1 on any problem.

Run by tests/tests/e2e/api_examples.rs with the pinned contract packages.
"""
import json, sys
from openapi_schema_validator import OAS31Validator

doc = json.load(sys.stdin)
problems, checked = [], 0

def follow(node):
    while isinstance(node, dict) and "$ref" in node:
        target = doc
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node

def check(where, schema, example):
    global checked
    checked += 1
    rooted = dict(schema, components=doc["components"])
    validator = OAS31Validator(rooted, format_checker=OAS31Validator.FORMAT_CHECKER)
    for error in validator.iter_errors(example):
        problems.append(f"{where}: {error.message}")

for path, item in doc["paths"].items():
    for method, op in item.items():
        where = f"{method.upper()} {path}"
        for parameter in op.get("parameters", []):
            name = parameter["name"]
            if not parameter.get("description"):
                problems.append(f"{where} parameter {name}: no description")
            if "example" not in parameter:
                problems.append(f"{where} parameter {name}: no example")
            else:
                check(f"{where} parameter {name}", parameter["schema"], parameter["example"])
        body = op.get("requestBody", {}).get("content", {})
        for media, content in body.items():
            if "example" not in content:
                problems.append(f"{where} request {media}: no example")
            else:
                check(f"{where} request", content["schema"], content["example"])
        for status, response in op["responses"].items():
            for name, header in follow(response).get("headers", {}).items():
                if "example" not in header:
                    problems.append(f"{where} {status} header {name}: no example")
                else:
                    check(f"{where} {status} header {name}", header["schema"], header["example"])
            for media, content in follow(response).get("content", {}).items():
                if media != "application/json":
                    continue
                if "example" not in content:
                    problems.append(f"{where} {status}: no example")
                else:
                    check(f"{where} {status}", content["schema"], content["example"])

for line in problems:
    print(line)
print(f"checked {checked} examples", file=sys.stderr)
sys.exit(1 if problems else 0)
