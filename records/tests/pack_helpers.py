"""Reading a built record pack back in tests."""

import hashlib
import io
import json
import zipfile

from records.models import RecordPack


def zip_of(pack: RecordPack) -> zipfile.ZipFile:
    pack.refresh_from_db()
    with pack.zip_file.open("rb") as handle:
        return zipfile.ZipFile(io.BytesIO(handle.read()))


def manifest(archive: zipfile.ZipFile) -> dict:
    return json.loads(archive.read("manifest.json"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
