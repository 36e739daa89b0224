"""Knowledge: what reading documents, indexing and retrieving cost, each beside a baseline of the same run.

1. Extraction: one document of each type the worker reads, built by tests/support/documents.py's builders from the
   same ``--mb`` MB of generated text, read by ``core.knowledge.extract`` (``--runs`` times, the types interleaved,
   medians): milliseconds per MB of text read, MB/s, and the ratio to plain text (TXT), the cheapest reader.
2. The index at 10^3 and 10^4 passages (generated text cut as the readers cut it, 900 characters at most): its gzip
   size, whole and per passage, the worker's build time, ``KnowledgeIndex.load`` (paid once per container and index
   version) and ``search`` (median µs over the questions of tests/data/knowledge_questions.json and the chat bench's
   prompt; the slowest of them; and a query of the corpus' commonest words, the longest postings).
3. The chat turn's first line with and without retrieval (bench/in_process.py's demo workspace on moto with its
   newest ``--posts`` posts, the offline model, bench/chat_turn.py's turn): the same agent with a 10^4-passage index
   and with none, the two modes alternated turn by turn in a warm container; the S3 GETs of each turn counted on the
   chat's own boto3 session. The target (the issue's): within 1.2x of the turn without retrieval, at most one GET per
   container and index version.
4. The worker's memory at each ``--memory-mb`` size of text (20 MB: the largest plan's limit per agent; 100 MB: the
   issue's figure): ``KnowledgeWorker.rebuild`` over that much Markdown and plain text, in a fresh interpreter
   (nothing earlier in its heap): the peak resident set (VmHWM) beside the resident set before the rebuild and the
   function's memory (template.yaml, KnowledgeMemorySize).

The text is generated (seeded): words of a 40,000-word vocabulary drawn with Zipf's law, as in natural language, in
sentences and paragraphs, with the curly apostrophes, dashes and accents a word processor writes; the questions' own
words sit among the 2,000 commonest, so a search walks long postings.

    PYTHONPATH=layers/common:. .venv/bin/python bench/knowledge.py [--mb 1] [--runs 5] [--turns 10] [--posts 24] \
        [--memory-mb 20 100] [--json PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: ``bench`` and the layer importable

from bench.benchkit import command, finish, median, parser, table  # noqa: E402

TIMES = "\u00d7"
TARGET_RATIO = 1.2  # the chat's first line with retrieval at 10^4 passages, against the same turn without
SIZES = (1_000, 10_000)
CHAT_PASSAGES = 10_000
MODES = ("without", "with")  # retrieval; alternated turn by turn
PASSAGES_PER_DOCUMENT = 50
NOW = "2026-01-01T00:00:00.000Z"
MB = 1_000_000  # of text: characters (the generated text is ASCII: as many bytes)
INDEX_HEADERS = ("passages", "gzip KB", "bytes per passage", "build ms", "load ms", "search µs", "slowest question µs",
                 "commonest words µs")  # fmt: skip
OOXML = "application/vnd.openxmlformats-officedocument."


# --- generated text


class Prose:
    """Seeded English-like text: words drawn from a Zipf-distributed vocabulary (rank r weighs 1 / (r + 2.7)),
    made-up words of one to four syllables (the commonest shortest) with a few typographic words among the commonest 400
    and ``domain`` words among the commonest 2,000, in sentences of 6 to 18 words and paragraphs of 2 to 6 sentences."""

    SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "ve", "so", "pi", "da",
                 "ber", "ton", "lin", "mar", "sel", "cor", "fen", "gar", "hol", "wes")  # fmt: skip
    VOCABULARY = 40_000

    # What a word processor writes into most documents: curly apostrophes, dashes, accents, currency signs. One such
    # character makes a Python string two bytes a character rather than one (PEP 393): memory measured on ASCII text
    # alone would flatter the worker.
    TYPOGRAPHIC = ("it\u2019s", "caf\u00e9", "we\u2019re", "\u2014", "don\u2019t", "\u20ac", "cr\u00e8me")

    def __init__(self, seed: int = 13, domain: tuple[str, ...] = ()):
        vocabulary = [self._word(n) for n in range(1, self.VOCABULARY)]
        for rank, word in enumerate(self.TYPOGRAPHIC):
            vocabulary.insert(30 + 60 * rank, word)
        for rank, word in enumerate(domain):
            vocabulary.insert(20 + (1980 * rank) // max(1, len(domain)), word)
        self.vocabulary = vocabulary
        self._weights = list(itertools.accumulate(1 / (rank + 2.7) for rank in range(len(vocabulary))))
        self._rng = random.Random(seed)  # noqa: S311 - reproducible text, not a secret

    def _word(self, n: int) -> str:
        word = ""
        while n:
            n, digit = divmod(n, len(self.SYLLABLES))
            word += self.SYLLABLES[digit]
        return word

    def paragraphs(self, chars: int) -> list[str]:
        """Paragraphs of about ``chars`` characters in all (the last one may pass it)."""
        rng, found, size = self._rng, list[str](), 0
        while size < chars:
            lengths = rng.choices(range(6, 19), k=rng.randint(2, 6))
            words = rng.choices(self.vocabulary, cum_weights=self._weights, k=sum(lengths))
            at, sentences = 0, []
            for length in lengths:
                sentence = " ".join(words[at : at + length])
                sentences.append(sentence[:1].upper() + sentence[1:] + ".")
                at += length
            paragraph = " ".join(sentences)
            found.append(paragraph)
            size += len(paragraph) + 2
        return found

    def passages(self, count: int, chars: int = 900) -> Iterator[str]:
        """``count`` passages of at most ``chars`` characters, each cut at a word as the readers cut a long block."""
        for _ in range(count):
            text = " ".join(self.paragraphs(chars - 100))
            yield text[: text.rfind(" ", 0, chars)] if len(text) > chars else text


def question_words() -> tuple[str, ...]:
    """The content words of the question set and of the chat bench's prompt: the generated text uses them often."""
    from core.knowledge.text import terms

    found = dict.fromkeys(terms(" ".join(queries())))
    return tuple(word for word in found if not word.isdigit())


def queries() -> list[str]:
    from bench.chat_turn import BODY
    from bench.knowledge_recall import questions

    return [entry["question"] for entry in questions()] + [BODY["prompt"]]


def heading(paragraph: str) -> str:
    return " ".join(paragraph.split()[:5]).rstrip(".")


# --- 1. extraction


def documents_of(paragraphs: list[str]) -> dict[str, tuple[bytes, str]]:
    """The same text as each type the worker reads: name -> (bytes, content type)."""
    from tests.support import documents

    titled = [(heading(p) if i % 8 == 0 else None, p) for i, p in enumerate(paragraphs)]
    lines = [line for p in paragraphs for line in _wrapped(p, 90)]
    latin = str.maketrans({"\u2019": "'", "\u2014": "-", "\u20ac": "EUR"})  # what the PDF builder's font can show
    pages = ["\n".join(lines[at : at + 45]).translate(latin) for at in range(0, len(lines), 45)]
    slides = [
        heading(paragraphs[at]) + "\n" + "\n".join(paragraphs[at : at + 3]) for at in range(0, len(paragraphs), 3)
    ]
    rows: list[list[Any]] = [["item", "size", "price_eur", "notes"]]
    rng = random.Random(5)  # noqa: S311 - reproducible prices, not a secret
    for p in paragraphs:  # the paragraph's text across rows of a price list, about 250 characters a row
        for at in range(0, len(p), 230):
            rows.append([heading(p[at:]) or "item", rng.choice(("small", "regular", "large")),
                         round(rng.uniform(1, 9), 2), p[at : at + 230]])  # fmt: skip
    table_text = io.StringIO()
    csv.writer(table_text).writerows(rows)
    markdown = "\n\n".join((f"# {title}\n\n{p}" if title else p) for title, p in titled)
    records = [{"title": heading(p), "body": p, "tags": ["menu", "coffee"]} for p in paragraphs]
    return {
        "TXT": ("\n\n".join(paragraphs).encode(), "text/plain"),
        "Markdown": (markdown.encode(), "text/markdown"),
        "JSON": (json.dumps({"articles": records}).encode(), "application/json"),
        "CSV": (table_text.getvalue().encode(), "text/csv"),
        "PDF": (documents.pdf_bytes(pages), "application/pdf"),
        "DOCX": (documents.docx_bytes(titled), OOXML + "wordprocessingml.document"),
        "XLSX": (documents.xlsx_bytes({"Prices": rows}), OOXML + "spreadsheetml.sheet"),
        "PPTX": (documents.pptx_bytes(slides), OOXML + "presentationml.presentation"),
        "ODT": (
            documents.odt_bytes([line for t, p in titled for line in ((f"# {t}", p) if t else (p,))]),
            documents.ODF_TEXT,
        ),
        "ODS": (documents.ods_bytes({"Prices": rows}), documents.ODF_SPREADSHEET),
        "ODP": (documents.odp_bytes(slides), documents.ODF_PRESENTATION),
    }


def _wrapped(paragraph: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in paragraph.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line, ""]


def extraction(mb: float, runs: int) -> list[list[Any]]:
    from core.knowledge.extract import extract

    made = documents_of(Prose(seed=1).paragraphs(int(mb * MB)))
    seconds: dict[str, list[float]] = {name: [] for name in made}
    chars: dict[str, tuple[int, int]] = {}
    for run in range(runs):
        order = list(made) if run % 2 == 0 else list(reversed(made))  # each type early and late alike
        for name in order:
            data, content_type = made[name]
            started = time.perf_counter()
            found = extract(data, content_type, max_chars=100 * MB)
            seconds[name].append(time.perf_counter() - started)
            chars[name] = (sum(len(p.text) for p in found), len(found))
    per_mb = {name: median(seconds[name]) * 1000 / (chars[name][0] / MB) for name in made}
    rows = []
    for name, (data, _) in made.items():
        text, passages = chars[name]
        rows.append([name, len(data) / 1024, text / MB, passages, per_mb[name], 1000 / per_mb[name],
                     f"{per_mb[name] / per_mb['TXT']:.1f}{TIMES}"])  # fmt: skip
    return rows


# --- 2. the index


def corpus(passages: int, seed: int = 2) -> list[tuple[Any, list[tuple[str, str]]]]:
    """Documents of ``PASSAGES_PER_DOCUMENT`` generated passages each, named and placed as the worker's readers
    name them (a PDF's pages)."""
    from core.knowledge.index import Source

    prose = Prose(seed=seed, domain=question_words())
    found = []
    for number in range(math.ceil(passages / PASSAGES_PER_DOCUMENT)):
        count = min(PASSAGES_PER_DOCUMENT, passages - number * PASSAGES_PER_DOCUMENT)
        source = Source(f"Handbook {number}", item_id=f"item_{number:05d}", r2_key=f"projects/prj/docs/{number}.pdf")
        found.append((source, [(text, f"page {page}") for page, text in enumerate(prose.passages(count), start=1)]))
    return found


def common_words(count: int = 6) -> dict[str, float]:
    """A query of the corpus' commonest content words: the longest postings any query can walk."""
    from core.knowledge.index import query_terms

    prose = Prose(domain=question_words())
    return dict(itertools.islice(query_terms(" ".join(prose.vocabulary[:200])).items(), count))


def searched(index: Any, weighted: dict[str, float], repeat: int) -> float:
    """Median µs of ``repeat`` searches as the chat searches (its limit and character budget)."""
    from core.knowledge.retrieval import BUDGET_CHARS, MAX_PASSAGES

    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        index.search(weighted, limit=MAX_PASSAGES, budget=BUDGET_CHARS)
        times.append(time.perf_counter() - started)
    return median(times) * 1e6


def index_rows(runs: int) -> tuple[list[list[Any]], bytes]:
    """One row per size; and the 10^4-passage index object (the chat's)."""
    from core.knowledge.index import KnowledgeIndex, build, query_terms

    asked = [query_terms(q) for q in queries()]
    rows, chat_index = [], b""
    for size in SIZES:
        documents = corpus(size)
        started = time.perf_counter()
        data, count, _ = build(documents)
        built = time.perf_counter() - started
        loads = []
        for _ in range(runs):
            started = time.perf_counter()
            index = KnowledgeIndex.load(data)
            loads.append(time.perf_counter() - started)
        repeat = max(5, 50_000 // size)
        per_query = [searched(index, weighted, repeat) for weighted in asked]
        rows.append([f"{count:,}", len(data) / 1024, len(data) / count, built * 1000, median(loads) * 1000,
                     median(per_query), max(per_query), searched(index, common_words(), repeat)])  # fmt: skip
        if size == CHAT_PASSAGES:
            chat_index = data
    return rows, chat_index


# --- 3. the chat turn with and without retrieval


@contextlib.contextmanager
def counting_gets(session: Any) -> Iterator[list[int]]:
    """S3 GetObject calls made by the clients of ``session`` (the chat's): ``[count]``, reset by the caller."""
    counted = [0]

    def count(**_: Any) -> None:
        counted[0] += 1

    session.events.register("before-call.s3.GetObject", count)
    try:
        yield counted
    finally:
        session.events.unregister("before-call.s3.GetObject", count)


@contextlib.contextmanager
def chat_stack(posts: int) -> Iterator[dict[str, Any]]:
    """bench/in_process.py's ``demo_stack`` with the demo's newest ``posts`` posts rather than its 168 and without its
    large media objects: a chat turn reads the same (the agent, brands, the visitor's count, the items, 12 posts of
    the feed), and seeding takes seconds rather than a minute."""
    from unittest import mock

    from bench import seeded_example
    from tests.conftest import FAKE_AWS
    from tests.support.lambdas import stack

    os.environ |= FAKE_AWS | stack().functions()["BrainFeedFunction"].environment
    os.environ |= {"AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "INFO"}
    import boto3
    from moto import mock_aws

    from local.aws.emulator import create_resources

    read = seeded_example._read

    def fewer(name: str) -> Any:
        found = read(name)
        return sorted(found, key=lambda p: p["createdAt"])[-posts:] if name == "posts.json" else found

    with mock_aws(), mock.patch.object(seeded_example, "_read", fewer):
        db, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(stack(), db, s3, secrets=boto3.client("secretsmanager"), sqs=boto3.client("sqs"))
        env = stack().functions()["BrainFeedFunction"].environment
        yield seeded_example.seed_example(
            db, s3, main_table=env["MAIN_TABLE"], api_keys_table=env["API_KEYS_TABLE"],
            ledger_table=env["LEDGER_TABLE"], bucket=env["CONTENT_BUCKET"],
        )  # fmt: skip


@contextlib.contextmanager
def timing_retrieval() -> Iterator[list[float]]:
    """`Retriever.passages` timed (ms, appended per call): retrieval's own share of a turn, free of the turn's
    noise."""
    from unittest import mock

    from core.knowledge.retrieval import Retriever

    spent: list[float] = []
    original = Retriever.passages

    def passages(self: Retriever, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            spent.append((time.perf_counter() - started) * 1000)

    with mock.patch.object(Retriever, "passages", passages):
        yield spent


def chat_turns(index: bytes, passages: int, turns: int, delay_ms: int, posts: int) -> dict[str, Any]:
    """First line (ms) of each turn without and with retrieval, alternated; the S3 GETs and retrieval ms of each."""
    import boto3

    from bench.chat_turn import in_process_turn, stamped_model
    from bench.in_process import Operation, captured_output, operations, prepare, unprepare
    from core.agents.records import KnowledgePointer
    from core.knowledge.write_store import KnowledgeStore, knowledge_prefix
    from core.platform import main_table as keys
    from core.platform.dynamo import to_item

    marks: dict[str, float] = {}
    with chat_stack(posts) as demo:
        op = next(o for o in operations(demo) if o.function == "BrainChatFunction")
        op = Operation(op.label, op.function, op.event, op.streamed,
                       {"CHAT_MODEL": "offline", "OFFLINE_MODEL_DELAY_MS": str(delay_ms)})  # fmt: skip
        session = prepare(op)  # the chat's clients come from this session: its hook sees their every call
        stamped_model(marks)
        workspace, agent = demo["id"], demo["agents"][0]["id"]
        own = boto3.Session()  # the bench's own writes, not counted with the chat's calls
        db, s3 = own.client("dynamodb"), own.client("s3")
        table_name, bucket = os.environ["MAIN_TABLE"], os.environ["CONTENT_BUCKET"]
        key = f"{knowledge_prefix(workspace, agent)}index-1.json.gz"
        s3.put_object(Bucket=bucket, Key=key, Body=index, ContentType="application/gzip")
        pointer = KnowledgePointer(version=1, key=key, fingerprint="bench", passages=passages)
        pointers, state = KnowledgeStore(db, table_name, s3, bucket), {"indexed": False}

        def indexed(on: bool) -> None:
            """The agent's pointer set (always version 1: a container holding it reads nothing) or removed."""
            if on == state["indexed"]:
                return
            if on:
                assert pointers.move_pointer(workspace, agent, None, pointer)
            else:
                db.update_item(TableName=table_name, Key=to_item(keys.agent(workspace, agent)),
                               UpdateExpression="REMOVE knowledge")  # fmt: skip
            state["indexed"] = on

        found: dict[str, Any] = {f"{what} {mode}": [] for what in ("ms", "gets", "retrieval") for mode in MODES}
        with counting_gets(session) as gets, timing_retrieval() as spent, captured_output():
            in_process_turn(op, marks)  # the container's first turn (clients, settings), without an index
            indexed(True)
            gets[0], spent[:] = 0, []
            found["first"] = in_process_turn(op, marks)["first line"]  # this version's one GET, and its load
            found["first gets"], found["first retrieval"] = gets[0], sum(spent)
            for turn in range(turns):
                for mode in MODES if turn % 2 == 0 else MODES[::-1]:
                    indexed(mode == "with")
                    gets[0], spent[:] = 0, []
                    found[f"ms {mode}"].append(in_process_turn(op, marks)["first line"])
                    found[f"gets {mode}"].append(gets[0])
                    found[f"retrieval {mode}"].append(sum(spent))
        unprepare(op)
    return found


# --- 4. the worker's memory


def memory_probe(mb: float, distinct: int = 5) -> dict[str, Any]:
    """In this (fresh) interpreter: rebuild an agent whose documents hold ``mb`` MB of text; the resident set before
    and at its peak. The documents are files, read one at a time as the worker's store hands them over."""
    from bench.knowledge_recall import InMemorySources, agent_record, rebuild

    with tempfile.TemporaryDirectory(prefix="bench-knowledge-") as scratch:
        items = write_documents(Path(scratch), mb, distinct)
        stored = {item.r2_key: (Path(scratch) / f"{n:03d}", item.mime_type) for n, item in enumerate(items)}

        def objects(r2_key: str) -> tuple[bytes, str] | None:
            path, kind = stored[r2_key]
            return path.read_bytes(), kind

        tags = {item.r2_key: f"etag{n}" for n, item in enumerate(items)}
        store = InMemorySources(agent_record("prj_memory", "Memory"), items, [], objects, tags, keep_written=False)
        disk = _watch_disk()
        before = _status("VmRSS")
        started, cpu = time.perf_counter(), time.process_time()
        done = rebuild(store, plan_chars=10 * int(mb * MB) + MB)  # no plan's limit: the measure is the worker's
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak = _status("VmHWM")
    index_key = next(k for k in store.written_bytes if k.endswith(".json.gz"))
    return {"documents": len(items), "text_mb": sum(item.size for item in items) / MB, "passages": done.passages,
            "seconds": seconds, "before_mb": before, "peak_mb": peak, "index_bytes": store.written_bytes[index_key],
            "failed": sum(s.status == "failed" for s in store.states.values()), "disk_mb": disk[0] / MB,
            "cpu": cpu}  # fmt: skip


def _watch_disk() -> list[int]:
    """The bytes of the index writer's scratch folder once its object is written (its largest: every run, the
    passages and the object): ``[bytes]``, 0 for a worker that writes none (before issue 43: all in memory)."""
    from core.knowledge import index

    found = [0]
    writer = getattr(index, "IndexWriter", None)
    if writer is None:
        return found
    finish = writer.finish

    def measured(self: Any) -> str:
        path: str = finish(self)
        folder = os.path.dirname(path)
        found[0] = max(found[0], sum(entry.stat().st_size for entry in os.scandir(folder)))
        return path

    writer.finish = measured
    return found


def write_documents(folder: Path, mb: float, distinct: int) -> list[Any]:
    """Documents of 4 MB of text each, Markdown and plain text in turn, ``mb`` MB in all, as files of ``folder``
    (``000``, ``001``...), and their items. ``distinct`` of them are generated and the rest repeat them: the same
    vocabulary, as many passages and postings, and generating 100 MB would take longer than indexing it."""
    from core.items.records import ItemRecord

    document_chars = 4 * MB
    count = max(1, math.ceil(mb * MB / document_chars))
    prose = Prose(seed=3, domain=question_words())
    items = []
    for number in range(count):
        markdown = number % 2 == 0
        path = folder / f"{number:03d}"
        chars = min(document_chars, int(mb * MB) - number * document_chars)
        if number < distinct or chars < document_chars:  # the last one may be shorter
            paragraphs = prose.paragraphs(chars)
            titled = [f"## {heading(p)}\n\n{p}" if i % 8 == 0 else p for i, p in enumerate(paragraphs)]
            path.write_text("\n\n".join(titled if markdown else paragraphs))
        else:
            path.write_bytes((folder / f"{number % distinct:03d}").read_bytes())
        kind, suffix = ("text/markdown", "md") if markdown else ("text/plain", "txt")
        r2_key, size = f"projects/prj_memory/docs/{number:03d}.{suffix}", path.stat().st_size
        items.append(ItemRecord(id=f"item_{number:03d}", agent_id="prj_memory", name=f"Handbook {number}",
                                kind="document", r2_key=r2_key, mime_type=kind, size=size, updated_at=NOW))  # fmt: skip
    return items


def _status(field: str) -> float:
    """A line of /proc/self/status in MB (VmRSS: now; VmHWM: the peak so far)."""
    found = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    return int(found.group(1)) / 1024 if found else float("nan")


def memory(mb: float) -> dict[str, Any]:
    """``memory_probe`` in a fresh interpreter."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])}
    done = subprocess.run([sys.executable, __file__, "--memory-probe", str(mb)], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def function_memory() -> int:
    """KnowledgeMemorySize's default in template.yaml (the worker's memory in MB)."""
    found = re.search(
        r"KnowledgeMemorySize:\s*\n(?:\s+\w+:.*\n)*?\s+Default:\s*(\d+)", (ROOT / "template.yaml").read_text()
    )
    return int(found.group(1)) if found else 0


# --- 5. what a rebuild reads


def rebuild_reads(documents: int) -> dict[str, Any]:
    """On moto: an agent with ``documents`` text documents, indexed once; the S3 GETs (documents, and kept passages)
    of a rebuild with nothing changed, then of one with one document replaced."""
    from urllib.parse import unquote

    import boto3
    from moto import mock_aws

    from core.knowledge.worker import KnowledgeWorker
    from core.knowledge.write_store import KnowledgeStore
    from local.aws.emulator import create_resources
    from tests.conftest import FAKE_AWS
    from tests.support.lambdas import stack
    from tests.support.seed import Seeder

    os.environ |= FAKE_AWS | stack().functions()["KnowledgeIndexFunction"].environment
    with mock_aws():
        db, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(stack(), db, s3, secrets=boto3.client("secretsmanager"), sqs=boto3.client("sqs"))
        bucket, table = os.environ["CONTENT_BUCKET"], os.environ["MAIN_TABLE"]
        seed = Seeder(db)
        workspace = seed.workspace(seed.user("bench@example.com", plan="pro"))
        agent = seed.agent(workspace)
        prose = Prose(seed=4)

        def put(number: int) -> str:
            key = f"projects/{agent.id}/docs/{number:04d}.txt"
            body = "\n\n".join(prose.paragraphs(2_000)).encode()
            s3.put_object(Bucket=bucket, Key=f"workspaces/{workspace.id}/{key}", Body=body, ContentType="text/plain")
            return key

        keys = [put(number) for number in range(documents)]
        seed.items(
            agent.id, [{"r2Key": key, "mimeType": "text/plain", "name": f"Note {n}"} for n, key in enumerate(keys)]
        )
        worker = KnowledgeWorker(KnowledgeStore(db, table, s3, bucket), plan_chars=lambda _: 100 * MB)
        paths: list[str] = []
        s3.meta.events.register(
            "before-call.s3.GetObject", lambda params, **_: paths.append(unquote(params["url_path"]))
        )

        def rebuild() -> dict[str, int]:
            paths.clear()
            worker.rebuild(workspace.id, agent.id, time_left=lambda: 900.0)
            return {"documents": sum("/projects/" in p for p in paths), "kept": sum("/knowledge/" in p for p in paths)}

        first = rebuild()
        unchanged = rebuild()
        put(0)
        changed = rebuild()
    return {"count": documents, "first": first, "unchanged": unchanged, "changed": changed}


def reads_section(found: list[dict[str, Any]]) -> list[str]:
    rows = [[f["count"], f"{f['first']['documents']} + {f['first']['kept']}",
             f"{f['unchanged']['documents']} + {f['unchanged']['kept']}",
             f"{f['changed']['documents']} + {f['changed']['kept']}"] for f in found]  # fmt: skip
    return [
        "What a rebuild reads (moto; `KnowledgeWorker.rebuild` on the service's store): S3 GETs of documents + of "
        "kept passages, the first rebuild, a rebuild with nothing changed, one with one document replaced.",
        table(["documents", "first rebuild GETs", "nothing changed GETs", "one replaced GETs"], rows),
    ]


# --- the section


def timed[T](name: str, spent: dict[str, float], work: Callable[[], T]) -> T:
    started = time.perf_counter()
    try:
        return work()
    finally:
        spent[name] = time.perf_counter() - started


def chat_section(turns: dict[str, Any], count: int) -> list[str]:
    without, with_ = median(turns["ms without"]), median(turns["ms with"])
    ratio, warm_gets = with_ / without, sum(turns["gets with"]) + sum(turns["gets without"])
    rows = [
        ["without retrieval (no index)", count, without, "1.00" + TIMES, median(turns["retrieval without"]),
         sum(turns["gets without"])],
        [f"with retrieval ({CHAT_PASSAGES:,} passages, index cached)", count, with_, f"{ratio:.2f}{TIMES}",
         median(turns["retrieval with"]), sum(turns["gets with"])],
        ["first turn with a new index version (its GET and load)", 1, turns["first"],
         f"{turns['first'] / without:.2f}{TIMES}", turns["first retrieval"], turns["first gets"]],
    ]  # fmt: skip
    gets_hold = turns["first gets"] <= 1 and warm_gets == 0
    targets = [
        [f"first line with retrieval / without, at {CHAT_PASSAGES:,} passages", f"\u2264 {TARGET_RATIO}{TIMES}",
         f"{ratio:.2f}{TIMES}", "yes" if ratio <= TARGET_RATIO else "no"],
        ["S3 GETs per container per index version", "\u2264 1",
         f"{turns['first gets']}, then {warm_gets} in {2 * count} turns", "yes" if gets_hold else "no"],
    ]  # fmt: skip
    return [
        "Chat turn in process (bench/in_process.py's demo workspace on moto with its newest posts, the offline model): "
        f"time to the first NDJSON line, median of {count} turns per mode, the two modes alternated in one warm "
        "container (the agent's pointer set and removed between turns; the index stays cached); the S3 GETs counted "
        "on the chat's own boto3 session; retrieval's own ms (`Retriever.passages`, timed within the turn) beside. "
        "moto's reads are slower than DynamoDB's: the turn without retrieval is slower here than on AWS, so the same "
        "retrieval ms weigh more there.",
        table(["turn", "turns", "first line ms", f"{TIMES} without", "retrieval ms", "S3 GETs"], rows),
        table(["target", "bound", "measured", "holds"], targets),
    ]


def memory_section(probes: list[dict[str, Any]]) -> list[str]:
    from core.platform.settings import PLAN_LIMITS

    limit = function_memory()
    largest = max(plan.knowledge_chars for plan in PLAN_LIMITS.values())
    rows = [[probed["text_mb"], probed["documents"], probed["passages"], probed["seconds"], probed["index_bytes"] / MB,
             probed["before_mb"], probed["peak_mb"], probed["peak_mb"] - probed["before_mb"], limit,
             f"{probed['peak_mb'] / limit:.2f}{TIMES}" if limit else "?", probed.get("disk_mb", 0), probed["cpu"]]
            for probed in probes]  # fmt: skip
    headers = ["text MB", "documents", "passages", "rebuild s", "index gzip MB", "RSS before MB", "peak RSS MB",
               "peak - before MB", "KnowledgeMemorySize MB", "peak / memory", "scratch MB",
               "rebuild CPU s"]  # fmt: skip
    return [
        "The worker's memory: one `KnowledgeWorker.rebuild` (an in-memory store) over Markdown and text documents of "
        "4 MB of text each, in a fresh interpreter per size; resident set from /proc/self/status (VmRSS before the "
        f"rebuild, VmHWM after). The largest plan indexes {largest / MB:g} MB of text per agent: past it, its limit is "
        "lifted for the measure. Scratch MB: the index writer's files in /tmp at their largest (issue 43: the index is "
        "written in passage batches through /tmp, not held in memory).",
        table(headers, rows),
    ]


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--mb", type=float, default=1.0, help="MB of text in each extracted document")
    cli.add_argument("--runs", type=int, default=5, help="reads of each document, and loads of each index")
    cli.add_argument("--turns", type=int, default=10, help="chat turns of each mode (alternated)")
    cli.add_argument("--posts", type=int, default=24, help="the demo's newest posts seeded for the chat turn")
    cli.add_argument("--delay-ms", type=int, default=0, help="the offline model's pause between deltas")
    cli.add_argument("--memory-mb", type=float, nargs="*", default=[20.0, 100.0], help="MB of text per memory probe")
    cli.add_argument("--reads", type=int, nargs="*", default=[10, 100], help="documents per rebuild-reads shelf")
    cli.add_argument("--only", choices=["memory", "reads"], help="run only this section")
    cli.add_argument("--memory-probe", type=float, help=argparse.SUPPRESS)  # the probe's own interpreter
    args = cli.parse_args(argv)
    if args.memory_probe is not None:
        print(json.dumps(memory_probe(args.memory_probe)))
        return {}
    spent: dict[str, float] = {}
    if args.only:
        probes = timed("memory", spent, lambda: [memory(mb) for mb in args.memory_mb]) if args.only == "memory" else []
        reads = timed("reads", spent, lambda: [rebuild_reads(n) for n in args.reads]) if args.only == "reads" else []
        parts = [
            *(memory_section(probes) if probes else []),
            *(reads_section(reads) if reads else []),
            "This run: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in spent.items()) + ".",
        ]
        return finish(args, "Knowledge: the worker's memory and what a rebuild reads",
                      command("knowledge.py", argv or []), "\n\n".join(parts))  # fmt: skip
    extracted = timed("extraction", spent, lambda: extraction(args.mb, args.runs))
    indexes, chat_index = timed("index", spent, lambda: index_rows(args.runs))
    turns = timed("chat", spent, lambda: chat_turns(chat_index, CHAT_PASSAGES, args.turns, args.delay_ms, args.posts))
    probes = timed("memory", spent, lambda: [memory(mb) for mb in args.memory_mb])
    reads = timed("reads", spent, lambda: [rebuild_reads(n) for n in args.reads])
    parts = [
        f"Extraction of about {args.mb:g} MB of generated text per document (median of {args.runs} reads each, the "
        "types interleaved); the ratio is to plain text's ms per MB, measured in the same run:",
        table(["type", "file KB", "text MB", "passages", "ms per MB of text", "MB/s", f"{TIMES} TXT"], extracted),
        f"The index (generated passages of at most 900 characters, {PASSAGES_PER_DOCUMENT} per document): built once, "
        f"loaded {args.runs} times (median); searched as the chat searches (6 passages, 4,000 characters): the median "
        f"µs per query over {len(queries())} questions, the slowest of them, and a query of the 6 commonest words:",
        table(INDEX_HEADERS, indexes),
        *chat_section(turns, args.turns),
        *(memory_section(probes) if probes else []),
        *(reads_section(reads) if reads else []),
        "This run: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in spent.items()) + ".",
    ]
    return finish(args, "Knowledge: extraction, index, retrieval in the chat turn, worker memory",
                  command("knowledge.py", argv or []), "\n\n".join(parts))  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
