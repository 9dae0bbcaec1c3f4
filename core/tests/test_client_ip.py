"""Whose address the audit log and the login throttle record: X-Forwarded-For is believed only
from a configured proxy, and only ever an IP address comes out."""

import pytest
from django.test import RequestFactory
from django.urls import reverse

from core.audit import client_ip
from core.models import AuditEvent

PROXY = "10.0.0.5"


def ip_of(remote_addr: str | None, forwarded: str | None = None) -> str | None:
    meta = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    request = RequestFactory().get("/", **meta)
    if remote_addr is None:
        del request.META["REMOTE_ADDR"]
    else:
        request.META["REMOTE_ADDR"] = remote_addr
    return client_ip(request)


@pytest.fixture
def behind_proxy(settings):
    settings.TRUSTED_PROXIES = [PROXY, "172.16.0.0/12"]


def test_without_trusted_proxies_the_header_is_ignored(settings):
    settings.TRUSTED_PROXIES = []
    assert ip_of("198.51.100.7", "203.0.113.9") == "198.51.100.7"


def test_a_client_that_is_not_a_proxy_cannot_choose_its_address(behind_proxy):
    assert ip_of("198.51.100.7", "203.0.113.9") == "198.51.100.7"


def test_behind_a_trusted_proxy_the_client_is_the_hop_it_appended(behind_proxy):
    assert ip_of(PROXY, "203.0.113.9") == "203.0.113.9"


def test_hops_the_client_made_up_left_of_the_real_one_are_ignored(behind_proxy):
    assert ip_of(PROXY, "1.2.3.4, 203.0.113.9") == "203.0.113.9"


def test_trusted_proxies_in_the_chain_are_skipped_right_to_left(behind_proxy):
    assert ip_of(PROXY, "1.2.3.4, 203.0.113.9, 172.17.0.1") == "203.0.113.9"


@pytest.mark.parametrize("garbage", ["not-an-ip", "", " , ", "203.0.113.9\x00", "999.1.1.1", "<script>"])
def test_garbage_in_the_header_never_comes_out(behind_proxy, garbage):
    assert ip_of(PROXY, garbage) == PROXY


def test_garbage_from_an_untrusted_client_is_ignored_too():
    assert ip_of("198.51.100.7", "not-an-ip") == "198.51.100.7"


def test_an_ipv6_client_is_kept_and_an_ipv4_mapped_one_is_shown_as_ipv4(behind_proxy):
    assert ip_of(PROXY, "2001:db8::1") == "2001:db8::1"
    assert ip_of("::ffff:198.51.100.7") == "198.51.100.7"


def test_no_remote_address_is_no_address():
    assert ip_of(None) is None
    assert ip_of("garbage") is None


def test_a_forged_header_does_not_break_a_page_or_reach_the_log(client, user_for, behind_proxy):
    user_for(None, username="clerk")
    response = client.post(
        reverse("login"), {"username": "clerk", "password": "wrong"}, HTTP_X_FORWARDED_FOR="not-an-ip"
    )
    assert response.status_code == 200
    assert AuditEvent.objects.get(action="auth.login_failed").ip == "127.0.0.1"


def test_a_bad_trusted_proxies_setting_refuses_to_start():
    import os
    import subprocess
    import sys

    from django.conf import settings

    result = subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        env={**os.environ, "APP_ENV": "test", "TRUSTED_PROXIES": "10.0.0.5,proxy.local"},
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        check=False,
    )
    assert result.returncode != 0
    assert "TRUSTED_PROXIES must list IP addresses or networks, got 'proxy.local'" in result.stderr
