"""The web container's healthcheck: GET /healthz on gunicorn inside the container; exit 0 on 200.

Plain Python (the image has no curl). The Host header is one ALLOWED_HOSTS accepts, so Django
answers rather than refusing 127.0.0.1 with a 400; /healthz is exempt from the HTTPS redirect.

    python deploy/healthcheck.py [URL]      # default http://127.0.0.1:8000/healthz
"""

import os
import sys
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8000/healthz"
TIMEOUT_SECONDS = 8  # the checks behind it give up within about 4 s


def host_header(allowed_hosts: str) -> str:
    """A Host that Django's ALLOWED_HOSTS check lets through: its first entry ("*" or none:
    localhost; ".example.co.za", a domain and its subdomains: example.co.za)."""
    first = next((host.strip() for host in allowed_hosts.split(",") if host.strip()), "*")
    return "localhost" if first == "*" else first.lstrip(".")


def main(argv: list[str]) -> int:
    url = argv[1] if len(argv) > 1 else DEFAULT_URL
    host = host_header(os.environ.get("ALLOWED_HOSTS", ""))
    request = urllib.request.Request(url, headers={"Host": host})  # noqa: S310 (our own URL)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 (our own URL)
            print(response.read(500).decode("utf-8", "replace"))
            return 0 if response.status == 200 else 1
    except urllib.error.HTTPError as error:  # 503: a check failed; its body says which
        print(error.code, error.read(500).decode("utf-8", "replace"))
        return 1
    except OSError as error:
        print(f"no answer from {url}: {error}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
