"""Strict readers of the apps' string resources that `push-worker strings` writes.

Usage: read_string_resources.py DIR  ->  prints JSON {"RELATIVE/PATH": {"entries": {key: text}, "errors": [...]}}
for every `*.lproj/Localizable.strings` and `values*/strings.xml` under DIR, each text as the app reads it
(escapes resolved, format placeholders such as %1$@ / %1$s and %% kept).

iOS: Python's plistlib reads only XML and binary property lists, not the old-style "strings" format, so this is a
strict parser of that format as Foundation reads it: comments, then `"key" = "value";` entries of quoted strings
with the escapes \\ \" \n \t \r and \\UXXXX; anything else is an error (a stray character, an unknown escape, a
missing semicolon, a duplicate key).
Android: xml.etree parses the file (so it must be well-formed XML); then the resource compiler's rules apply: an
unescaped apostrophe or double quote is an error (aapt2 rejects the first and drops the second), the escapes \\'
\\" \\\\ \\n \\t \\@ \\? are resolved, and names must be resource names.
"""
import json
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree

RESOURCE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


class StringsError(Exception):
    pass


def read_ios(text):
    entries, position = {}, 0

    def skip_space_and_comments():
        nonlocal position
        while position < len(text):
            if text[position].isspace():
                position += 1
            elif text.startswith("/*", position):
                end = text.find("*/", position + 2)
                if end < 0:
                    raise StringsError("unclosed comment")
                position = end + 2
            elif text.startswith("//", position):
                end = text.find("\n", position)
                position = len(text) if end < 0 else end + 1
            else:
                return

    def quoted():
        nonlocal position
        if position >= len(text) or text[position] != '"':
            raise StringsError(f"expected a quoted string at offset {position}")
        position += 1
        value = []
        while True:
            if position >= len(text):
                raise StringsError("unclosed string")
            character = text[position]
            if character == '"':
                position += 1
                return "".join(value)
            if character == "\\":
                escape = text[position + 1 : position + 2]
                if escape in ('"', "\\"):
                    value.append(escape)
                    position += 2
                elif escape in ("n", "t", "r"):
                    value.append({"n": "\n", "t": "\t", "r": "\r"}[escape])
                    position += 2
                elif escape == "U" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[position + 2 : position + 6]):
                    value.append(chr(int(text[position + 2 : position + 6], 16)))
                    position += 6
                else:
                    raise StringsError(f"unknown escape \\{escape} at offset {position}")
            else:
                value.append(character)
                position += 1

    def expect(symbol):
        nonlocal position
        skip_space_and_comments()
        if not text.startswith(symbol, position):
            raise StringsError(f"expected '{symbol}' at offset {position}")
        position += 1

    skip_space_and_comments()
    while position < len(text):
        key = quoted()
        expect("=")
        skip_space_and_comments()
        value = quoted()
        expect(";")
        if key in entries:
            raise StringsError(f"duplicate key {key}")
        entries[key] = value
        skip_space_and_comments()
    return entries


def android_text(raw):
    value, index = [], 0
    while index < len(raw):
        character = raw[index]
        if character == "\\":
            escape = raw[index + 1 : index + 2]
            if escape in ("'", '"', "\\"):
                value.append(escape)
            elif escape in ("n", "t"):
                value.append({"n": "\n", "t": "\t"}[escape])
            elif escape in ("@", "?") and index == 0:
                value.append(escape)
            else:
                raise StringsError(f"unknown escape \\{escape}")
            index += 2
        elif character in ("'", '"'):
            raise StringsError(f"unescaped {character} in {raw!r}")
        else:
            value.append(character)
            index += 1
    text = "".join(value)
    if raw.startswith(("@", "?")):
        raise StringsError(f"{raw!r} would be read as a resource reference")
    return text


def read_android(data):
    root = ElementTree.fromstring(data)
    if root.tag != "resources":
        raise StringsError(f"root element is <{root.tag}>, not <resources>")
    entries = {}
    for element in root:
        if element.tag != "string" or len(element):
            raise StringsError(f"unexpected <{element.tag}> or nested markup")
        name = element.get("name", "")
        if not RESOURCE_NAME.match(name):
            raise StringsError(f"{name!r} is no resource name")
        if name in entries:
            raise StringsError(f"duplicate name {name}")
        entries[name] = android_text(element.text or "")
    return entries


def main(folder):
    root = pathlib.Path(folder)
    results = {}
    for path in sorted(root.glob("*.lproj/Localizable.strings")) + sorted(root.glob("values*/strings.xml")):
        result = {"entries": {}, "errors": []}
        try:
            data = path.read_bytes()
            if path.suffix == ".strings":
                result["entries"] = read_ios(data.decode("utf-8"))
            else:
                result["entries"] = read_android(data)
        except (StringsError, ElementTree.ParseError, UnicodeDecodeError) as error:
            result["errors"].append(str(error))
        results[str(path.relative_to(root))] = result
    json.dump(results, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
