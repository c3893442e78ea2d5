"""kg fetch against a real local HTTP server speaking each API's format: paging, empty
pages, 503 + Retry-After, dropped connections, resumed harvests, malformed records,
duplicates and new versions. Waits go through a fake clock: nothing sleeps for real."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kg.errors import FetchError
from kg.ingest.sources import (
    ArxivOai,
    ArxivQuery,
    HfDaily,
    PoliteClient,
    Politeness,
    fetch_to_file,
    state_path,
)
from tests.sources_server import (
    Answer,
    SourceServer,
    atom_feed,
    daily_papers,
    oai_error,
    oai_page,
    oai_record,
    paper,
)


class FakeTime:
    """A clock that only moves when slept on."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def client(time: FakeTime, **kw) -> PoliteClient:
    settings = {"delay": 3.0, "retries": 3, "backoff": 5.0, **kw}
    return PoliteClient(Politeness(**settings), sleep=time.sleep, clock=time.clock)


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def oai_pages(pages: dict[str | None, bytes]):
    """A handler answering ListRecords by resumption token (``None``: the first request)."""

    def handler(path, params):
        assert params["verb"] == "ListRecords"
        return Answer(pages[params.get("resumptionToken")])

    return handler


def test_oai_harvest_pages_with_tokens_and_writes_each_paper_once(tmp_path):
    p = [paper(n) for n in range(1, 7)]
    pages = {
        None: oai_page([oai_record(p[0]), oai_record(p[1])], "tok-1", size=7),
        "tok-1": oai_page(
            [
                oai_record(p[1]),
                oai_record(p[2], broken="abstract"),
                oai_record(p[3]),
                oai_record(paper(7, category="cs.CV")),
                oai_record(deleted="2611.09999"),
            ],
            "tok-2",
            size=7,
        ),  # fmt: skip
        "tok-2": oai_page([oai_record(p[4]), oai_record(p[5])], "", size=7),
    }
    time = FakeTime()
    out = tmp_path / "papers.jsonl"
    with SourceServer(oai_pages(pages)) as server, client(time) as c:
        source = ArxivOai(("cs.CL",), "2026-11-01", "2026-11-30", base_url=server.url + "/oai")
        summary = fetch_to_file(source, out, c)
    got = lines(out)
    assert [r["id"] for r in got] == ["2611.00001", "2611.00002", "2611.00004", "2611.00005",
                                      "2611.00006"]  # fmt: skip
    assert summary.duplicates == 1 and summary.dropped == 1 and summary.pages == 3
    assert len(summary.malformed) == 1 and "2611.00003" in summary.malformed[0].reason
    assert "abstract" in summary.malformed[0].reason and "page 2" in str(summary.malformed[0])
    first = got[0]
    assert first["title"] == p[0]["title"] and first["abstract"] == p[0]["abstract"]
    assert "$\\ell_2$" in first["abstract"] and "4$\\times$" in first["abstract"]  # as written
    assert first["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert first["categories"] == ["cs.CL"] and first["date"] == p[0]["created"]
    assert first["url"] == "https://arxiv.org/abs/2611.00001" and "version" not in first
    # the first request names the set, format and dates; the rest only the token
    assert server.seen[0].params == {
        "verb": "ListRecords",
        "metadataPrefix": "arXiv",
        "set": "cs",
        "from": "2026-11-01",
        "until": "2026-11-30",
    }
    assert server.seen[1].params == {"verb": "ListRecords", "resumptionToken": "tok-1"}
    assert all(s.headers["User-Agent"].startswith("kg/") for s in server.seen)
    assert len({s.port for s in server.seen}) == 1  # one connection throughout
    assert time.sleeps == [3.0, 3.0]  # the delay between requests, none before the first
    assert not state_path(out).exists()


def test_no_records_match_is_an_empty_harvest(tmp_path):
    time = FakeTime()
    out = tmp_path / "none.jsonl"
    answer = Answer(oai_error("noRecordsMatch", "No records match"))
    with SourceServer(lambda path, params: answer) as server, client(time) as c:
        summary = fetch_to_file(
            ArxivOai((), "2026-11-30", "2026-11-30", base_url=server.url), out, c
        )
    assert out.read_text() == "" and summary.written == 0 and summary.pages == 1


def test_other_oai_errors_are_reported(tmp_path):
    answer = Answer(oai_error("badArgument", "from is after until"))
    with SourceServer(lambda path, params: answer) as server, client(FakeTime()) as c:
        with pytest.raises(FetchError, match="badArgument: from is after until"):
            fetch_to_file(ArxivOai((), "2026-11-30", "2026-11-01", base_url=server.url),
                          tmp_path / "x.jsonl", c)  # fmt: skip


def test_503_with_retry_after_is_waited_for_then_asked_again(tmp_path):
    calls = []

    def handler(path, params):
        calls.append(params)
        if len(calls) == 1:
            return Answer(b"busy", status=503, headers={"Retry-After": "17"})
        return Answer(oai_page([oai_record(paper(1))], ""))

    time = FakeTime()
    with SourceServer(handler) as server, client(time) as c:
        summary = fetch_to_file(ArxivOai((), "2026-11-01", "2026-11-02", base_url=server.url),
                                tmp_path / "p.jsonl", c)  # fmt: skip
    assert summary.written == 1 and summary.retries == 1 and len(calls) == 2
    assert 17.0 in time.sleeps  # Retry-After, not the backoff of 5 s


def test_a_connection_dropped_mid_page_is_asked_again_and_nothing_is_lost(tmp_path):
    p = [paper(n) for n in range(1, 5)]
    full = {None: oai_page([oai_record(p[0]), oai_record(p[1])], "t1"),
            "t1": oai_page([oai_record(p[2]), oai_record(p[3])], "")}  # fmt: skip
    dropped = []

    def handler(path, params):
        token = params.get("resumptionToken")
        if token == "t1" and not dropped:
            dropped.append(True)
            return Answer(full[token], cut=len(full[token]) // 2)
        return Answer(full[token])

    time = FakeTime()
    out = tmp_path / "p.jsonl"
    with SourceServer(handler) as server, client(time) as c:
        summary = fetch_to_file(ArxivOai((), "2026-11-01", "2026-11-02", base_url=server.url),
                                out, c)  # fmt: skip
    assert [r["id"] for r in lines(out)] == [x["id"] for x in p]
    assert summary.retries == 1 and 5.0 in time.sleeps  # backoff after the drop


def test_an_interrupted_harvest_resumes_where_it_stopped(tmp_path):
    p = [paper(n) for n in range(1, 7)]
    pages = {None: oai_page([oai_record(p[0]), oai_record(p[1])], "t1"),
             "t1": oai_page([oai_record(p[2]), oai_record(p[3])], "t2"),
             "t2": oai_page([oai_record(p[4]), oai_record(p[5])], "")}  # fmt: skip
    broken = {"on": True}

    def handler(path, params):
        if broken["on"] and params.get("resumptionToken") == "t2":
            return Answer(b"oops", status=500)
        return Answer(pages[params.get("resumptionToken")])

    out = tmp_path / "p.jsonl"
    source_args = ((), "2026-11-01", "2026-11-30")
    with SourceServer(handler) as server:
        source = ArxivOai(*source_args, base_url=server.url)
        with client(FakeTime(), retries=1) as c, pytest.raises(FetchError, match="HTTP 500"):
            fetch_to_file(source, out, c)
        assert state_path(out).exists()
        assert [r["id"] for r in lines(out)] == [x["id"] for x in p[:4]]
        with open(out, "a") as fh:  # a page written but not yet recorded when it stopped
            fh.write('{"id": "2611.00005", "tit')
        other = tmp_path / "other.jsonl"
        other.write_text("mine\n")
        with pytest.raises(FetchError, match="exists"):  # no fetch state: never overwritten
            fetch_to_file(source, other, client(FakeTime()))
        assert other.read_text() == "mine\n"
        broken["on"] = False
        n_before = len(server.seen)
        with client(FakeTime()) as c:
            summary = fetch_to_file(source, out, c)
        assert server.seen[n_before].params == {"verb": "ListRecords", "resumptionToken": "t2"}
    assert summary.resumed
    assert [r["id"] for r in lines(out)] == [x["id"] for x in p]
    assert not state_path(out).exists()


def test_a_resumed_fetch_must_ask_for_the_same(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_text("")
    state_path(out).write_text(json.dumps({"source": {"source": "hf-daily"}}))
    with pytest.raises(FetchError, match="belongs to another fetch"):
        fetch_to_file(ArxivOai((), "2026-11-01"), out, client(FakeTime()))


def test_a_newer_version_in_the_same_harvest_replaces_the_first(tmp_path):
    old, new = paper(3), paper(3, version=2, tweak=" We also release the code.")
    new["updated"] = "2026-11-29"
    pages = {None: oai_page([oai_record(old), oai_record(paper(4))], "t1"),
             "t1": oai_page([oai_record(new)], "")}  # fmt: skip
    out = tmp_path / "p.jsonl"
    with SourceServer(oai_pages(pages)) as server, client(FakeTime()) as c:
        summary = fetch_to_file(ArxivOai((), "2026-11-01", base_url=server.url), out, c)
    got = lines(out)
    assert [r["id"] for r in got] == ["2611.00003", "2611.00004"]
    assert got[0]["abstract"].endswith("We also release the code.")
    assert got[0]["updated"] == "2026-11-29" and summary.updated == ["2611.00003"]


def test_query_api_pages_by_offset_and_keeps_versions(tmp_path):
    p = [paper(n, version=1 + n % 3) for n in range(1, 6)]

    def handler(path, params):
        start, size = int(params["start"]), int(params["max_results"])
        assert params["search_query"] == 'all:"gated retrieval"'
        return Answer(atom_feed(p[start : start + size], total=len(p), start=start))

    out = tmp_path / "q.jsonl"
    with SourceServer(handler) as server, client(FakeTime()) as c:
        source = ArxivQuery('all:"gated retrieval"', max_results=10, page_size=2,
                            base_url=server.url + "/api/query")  # fmt: skip
        summary = fetch_to_file(source, out, c)
    got = lines(out)
    assert [r["id"] for r in got] == [x["id"] for x in p] and summary.pages == 3
    assert [r["version"] for r in got] == [x["version"] for x in p]
    assert got[0]["abstract"] == p[0]["abstract"] and got[0]["date"] == p[0]["created"]
    assert [s.params["start"] for s in server.seen] == ["0", "2", "4"]


def test_hf_daily_one_request_per_day_with_upvotes(tmp_path):
    days = {"2026-11-29": [paper(1), paper(2)], "2026-11-30": [paper(2), paper(3)]}

    def handler(path, params):
        papers = days[params["date"]]
        body = json.loads(daily_papers(papers, [10 * (i + 1) for i in range(len(papers))]))
        if params["date"] == "2026-11-30":
            body.append({"paper": {"id": "2611.00042", "title": "No summary here"}})
        return Answer(json.dumps(body).encode())

    out = tmp_path / "hf.jsonl"
    with SourceServer(handler) as server, client(FakeTime()) as c:
        summary = fetch_to_file(HfDaily("2026-11-29", "2026-11-30", base_url=server.url), out, c)
    got = lines(out)
    assert [r["id"] for r in got] == ["2611.00001", "2611.00002", "2611.00003"]
    assert [r["upvotes"] for r in got] == [10, 20, 20]
    assert got[0]["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert summary.duplicates == 1 and "2611.00042" in summary.malformed[0].reason
    assert [s.params["date"] for s in server.seen] == ["2026-11-29", "2026-11-30"]


def test_kg_fetch_cli_explains_and_fetches(tmp_path):
    from kg.cli import app

    runner = CliRunner()
    help_text = runner.invoke(app, ["fetch", "--help"]).output
    assert "arxiv" in help_text and "hf-daily" in help_text
    arxiv_help = runner.invoke(app, ["fetch", "arxiv", "--help"]).output
    for option in ("--category", "--from", "--until", "--query", "--max", "--base-url",
                   "--delay"):  # fmt: skip
        assert option in arxiv_help
    assert "--date" in runner.invoke(app, ["fetch", "hf-daily", "--help"]).output

    pages = {None: oai_page([oai_record(paper(1)), oai_record(paper(2))], "")}
    out = tmp_path / "cli.jsonl"
    with SourceServer(oai_pages(pages)) as server:
        args = ["fetch", "arxiv", "--category", "cs.CL", "--from", "2026-11-01",
                "--base-url", server.url, "--delay", "0", "-o", str(out)]  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "wrote 2 papers" in result.output
        again = runner.invoke(app, args)
    assert again.exit_code == 1 and "exists" in again.output
    bad = runner.invoke(app, ["fetch", "arxiv", "--from", "yesterday", "-o", str(out)])
    assert bad.exit_code != 0 and "not a date" in bad.output


def test_an_empty_page_in_the_middle_of_a_list_is_followed_to_the_next(tmp_path):
    pages = {None: oai_page([oai_record(paper(1))], "t1"),
             "t1": oai_page([], "t2"),
             "t2": oai_page([oai_record(paper(2))], "")}  # fmt: skip
    out = tmp_path / "p.jsonl"
    with SourceServer(oai_pages(pages)) as server, client(FakeTime()) as c:
        summary = fetch_to_file(ArxivOai((), "2026-11-01", base_url=server.url), out, c)
    assert [r["id"] for r in lines(out)] == ["2611.00001", "2611.00002"]
    assert summary.pages == 3
