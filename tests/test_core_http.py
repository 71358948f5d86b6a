"""Retrying transport and error mapping, driven by httpx.MockTransport."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest

from fleet_street.core import errors
from fleet_street.core.cancel import CancelToken
from fleet_street.core.data_client import DataClient
from fleet_street.core.http import HttpTransport, classify_403, retry_after_seconds
from fleet_street.core.profile import ConnectionProfile

PROFILE = ConnectionProfile(fleet_url="http://fleet.test", data_url="http://data.test/api",
                            fleet_key="FLEETKEY", data_key="DATAKEY", max_attempts=4)


def scripted(*answers):
    """A transport answering with the given (status, body, headers) in turn, then the last."""
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        answer = answers[min(len(calls) - 1, len(answers) - 1)]
        if isinstance(answer, Exception):
            raise answer
        status, body, *rest = answer
        headers = rest[0] if rest else {}
        if isinstance(body, (dict, list)):
            return httpx.Response(status, json=body, headers=headers)
        return httpx.Response(status, content=body.encode(), headers=headers)

    return httpx.MockTransport(handler), calls


def make(transport, **kw):
    http = HttpTransport(PROFILE, transport=transport, backoff_base=0.001, backoff_cap=0.01,
                         retry_after_cap=0.05, **kw)
    return DataClient(PROFILE, http=http), http


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_retries_transient_statuses_then_succeeds(status):
    transport, calls = scripted((status, {"error": "busy"}), (200, {"balance": 5}))
    client, _ = make(transport)
    assert client.balance() == 5
    assert len(calls) == 2
    assert calls[0].headers["Authorization"] == "Basic DATAKEY"


def test_throttling_403_is_retried_but_key_403_is_not():
    transport, calls = scripted((403, {"error": "Rate exceeded"}), (200, {"balance": 1}))
    assert make(transport)[0].balance() == 1 and len(calls) == 2
    transport, calls = scripted((403, {"error": "Forbidden (couldn't extract valid API key)"}))
    with pytest.raises(errors.AuthError) as info:
        make(transport)[0].balance()
    assert len(calls) == 1 and "couldn't extract" in info.value.server_message


@pytest.mark.parametrize("status,body,kind", [
    (400, {"error": "Area too large"}, errors.BadRequestError),
    (401, {"message": "no"}, errors.AuthError),
    (402, {"error": "Payment required"}, errors.OutOfCreditsError),
    (403, {"error": "Not enough credits"}, errors.OutOfCreditsError),
    (404, {"error": "Not found"}, errors.NotFoundError),
])
def test_status_mapping_without_retry(status, body, kind):
    transport, calls = scripted((status, body))
    with pytest.raises(kind) as info:
        make(transport)[0].balance()
    assert info.value.status == status and len(calls) == 1
    assert info.value.request.startswith("GET http://data.test/api/balance")


def test_exhausted_retries_raise_typed_error_never_empty_result():
    transport, calls = scripted((500, {"error": "Internal server error"}))
    client, _ = make(transport)
    with pytest.raises(errors.ServerError) as info:
        client.latest_poly({"type": "Polygon", "coordinates": [[[0, 0], [0.01, 0], [0.01, 0.01],
                                                                [0, 0]]]})
    assert len(calls) == PROFILE.max_attempts
    assert "Internal server error" in str(info.value)


def test_html_cdn_page_and_truncated_json_give_readable_errors():
    page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>"
    transport, _ = scripted((502, page, {"content-type": "text/html"}))
    with pytest.raises(errors.ServerError) as info:
        make(transport)[0].balance()
    assert info.value.server_message == "502 Bad Gateway"
    transport, calls = scripted((200, '{"balance": 1'), (200, {"balance": 2}))
    assert make(transport)[0].balance() == 2 and len(calls) == 2
    transport, _ = scripted((200, "<html>cdn</html>"))
    with pytest.raises(errors.InvalidResponseError):
        make(transport)[0].balance()


def test_connection_errors_retry_then_network_error():
    transport, calls = scripted(httpx.ConnectError("refused"), (200, {"balance": 3}))
    assert make(transport)[0].balance() == 3 and len(calls) == 2
    transport, _ = scripted(httpx.RemoteProtocolError("dropped"))
    with pytest.raises(errors.NetworkError):
        make(transport)[0].balance()


def test_retry_after_seconds_and_http_date():
    assert retry_after_seconds("3") == 3.0
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=10), usegmt=True),
                               now=now) == pytest.approx(10, abs=1)
    assert retry_after_seconds("garbage") is None
    transport, calls = scripted((429, {"error": "Too Many Requests"}, {"Retry-After": "1"}),
                                (200, {"balance": 1}))
    client, http = make(transport)
    http.retry_after_cap = 0.3
    start = time.monotonic()
    client.balance()
    assert time.monotonic() - start >= 0.3


def test_classify_403():
    assert classify_403("Rate exceeded") == "throttle"
    assert classify_403("Forbidden (couldn't extract valid API key)") == "auth"
    assert classify_403("Insufficient credits") == "credits"


def test_key_in_query_is_redacted_from_errors():
    transport, calls = scripted((404, {"error": "nope"}))
    http = HttpTransport(PROFILE, transport=transport)
    client = DataClient(PROFILE, http=http, key_in_query=True)
    with pytest.raises(errors.NotFoundError) as info:
        client.balance()
    assert calls[0].url.params["apiKey"] == "DATAKEY"
    assert "DATAKEY" not in str(info.value) and "apiKey=***" in info.value.request


def test_cancel_interrupts_backoff_sleep():
    transport, _ = scripted((503, {"error": "down"}))
    cancel = CancelToken()
    http = HttpTransport(PROFILE, cancel=cancel, transport=transport, backoff_base=30,
                         backoff_cap=30)
    client = DataClient(PROFILE, cancel=cancel, http=http)
    threading.Timer(0.2, cancel.cancel).start()
    start = time.monotonic()
    with pytest.raises(errors.FetchCancelled):
        client.balance()
    assert time.monotonic() - start < 2


def test_backoff_comes_from_the_profile_unless_given():
    assert HttpTransport(PROFILE).backoff_base == 0.25
    quick = PROFILE.replace(backoff_base_s=0.0, max_attempts=3)
    transport, calls = scripted((503, {"error": "down"}))
    http = HttpTransport(quick, transport=transport)
    assert http.backoff_base == 0.0 and http.max_attempts == 3
    start = time.monotonic()
    with pytest.raises(errors.ServerError):
        DataClient(quick, http=http).balance()
    assert len(calls) == 3 and http.retries == 2
    assert time.monotonic() - start < 5  # a zero base means no backoff sleep at all
    assert HttpTransport(quick, backoff_base=0.5).backoff_base == 0.5


def test_validation_before_any_call():
    transport, calls = scripted((200, {}))
    client, _ = make(transport)
    big = {"type": "Polygon", "coordinates": [[[0, 0], [0.1, 0], [0.1, 0.1], [0, 0.1], [0, 0]]]}
    with pytest.raises(errors.ValidationError):
        client.latest_poly(big)
    with pytest.raises(errors.ValidationError):
        client.map_data({"type": "Point", "coordinates": [0, 0]})
    with pytest.raises(errors.ValidationError):
        client.create_bursts([{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}])
    assert calls == []


BURST = [{"type": "Point", "coordinates": [13.4, 52.5]}]
CREATED = {"success": True, "bursts": [{"id": "b1", "status": "active"}], "creditsRemaining": 9}


@pytest.mark.parametrize("failure,kind", [
    ((500, {"error": "Internal server error"}), errors.ServerError),
    ((503, {"error": "busy"}), errors.ServerError),
    (httpx.RemoteProtocolError("dropped after sending"), errors.NetworkError),
    (httpx.ReadTimeout("no answer"), errors.NetworkError),
    ((200, '{"success": tr'), errors.InvalidResponseError),
])
def test_burst_create_is_not_retried_when_the_outcome_is_unknown(failure, kind):
    transport, calls = scripted(failure, (200, CREATED))
    client, _ = make(transport)
    with pytest.raises(kind) as info:
        client.create_bursts(BURST)
    assert len(calls) == 1
    text = str(info.value)
    assert "outcome is unknown" in text and "bursts" in text and "before creating" in text
    assert info.value.outcome_unknown


@pytest.mark.parametrize("failure", [
    httpx.ConnectError("refused"),
    httpx.ConnectTimeout("no connection"),
    (429, {"error": "Too Many Requests"}, {"Retry-After": "0"}),
])
def test_burst_create_is_retried_when_it_certainly_did_not_happen(failure):
    transport, calls = scripted(failure, (200, CREATED))
    client, _ = make(transport)
    assert client.create_bursts(BURST).bursts[0].id == "b1"
    assert len(calls) == 2


def test_burst_create_definite_refusals_raise_at_once():
    transport, calls = scripted((403, {"error": "Rate exceeded"}), (200, CREATED))
    with pytest.raises(errors.RateLimitedError) as info:
        make(transport)[0].create_bursts(BURST)
    assert len(calls) == 1 and "outcome is unknown" not in str(info.value)
    transport, calls = scripted((402, {"error": "Payment required"}))
    with pytest.raises(errors.OutOfCreditsError):
        make(transport)[0].create_bursts(BURST)
    assert len(calls) == 1


def test_renew_is_not_retried_after_a_server_error_but_queries_are():
    transport, calls = scripted((502, {"error": "bad gateway"}), (200, {"url": "http://f/x"}))
    with pytest.raises(errors.ServerError) as info:
        make(transport)[0].renew_url("http://f/x?Expires=1&Signature=s")
    assert len(calls) == 1 and "outcome is unknown" in str(info.value)
    poly = {"type": "Polygon", "coordinates": [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0]]]}
    for path, call in [
        ("/mapFeatures/poly", lambda c: c.map_features_poly(poly)),
        ("/latest/poly", lambda c: c.latest_poly(poly)),
        ("/imagery/poly", lambda c: c.imagery_poly(poly, datetime(2026, 1, 5))),
        ("/map-data", lambda c: c.map_data(poly)),
        ("/aievents/search", lambda c: c.search_ai_events("2026-01-01", "2026-01-02")),
    ]:
        answer = {"features": [], "frames": [], "events": [],
                  "mapFeatureResults": {"data": []}, "imageryResults": {"data": []}}
        transport, calls = scripted((500, {"error": "x"}), httpx.RemoteProtocolError("cut"),
                                    (200, '{"frames": ['), (200, answer))
        call(make(transport)[0])
        assert len(calls) == 4 and calls[0].url.path.endswith(path), path


def test_truncated_burst_create_on_emulator_creates_one_burst_per_call(emulator):
    profile = ConnectionProfile.from_env(emulator.env()).replace(max_attempts=4)
    client = DataClient(profile, http=HttpTransport(profile, backoff_base=0.001,
                                                    backoff_cap=0.01))
    emulator.configure(fault_rate=1.0, fault_kinds=["truncate"])
    for _ in range(4):
        with pytest.raises(errors.InvalidResponseError) as info:
            client.create_bursts(BURST)
        assert "outcome is unknown" in str(info.value)
    emulator.configure(fault_rate=0.0)
    assert len(client.all_bursts()) == 4
    stats = emulator.stats()["endpoints"]["POST /api/developer/burst/create"]
    assert stats["requests"] == 4


def test_api_key_never_reaches_httpx_logs(emulator, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    profile = ConnectionProfile.from_env(emulator.env())
    with DataClient(profile, key_in_query=True) as client:
        client.balance()
        with pytest.raises(errors.NotFoundError):
            client.ai_event("0" * 24)
    logging.getLogger("httpx").info("headers %s", {"Authorization": f"Basic {profile.data_key}"})
    logging.getLogger("httpcore.http11").debug("Authorization: Bearer %s", profile.data_key)
    records = [r for r in caplog.records if r.name.startswith(("httpx", "httpcore"))]
    assert any("apiKey=***" in r.getMessage() for r in records)
    assert all(profile.data_key not in r.getMessage() for r in records)
    assert profile.data_key not in caplog.text
