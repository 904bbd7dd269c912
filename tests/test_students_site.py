"""The students' site that `derive build` writes (SITE/students/, the folder a lecturer
publishes): what it holds and what it never holds, its titles from the bank's [course], its
question sheets (room to answer, no answers), and in Chromium its fit on a 375 px phone.

Expected values are written by hand here: the titles of the bank's derive.toml, the answers of
one SGD step worked out in Fractions, the questions each exercise claims."""

import re
import unicodedata
from fractions import Fraction as F
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from derive.cli.main import main

pytestmark = pytest.mark.usefixtures("own_cache")

ROOT = Path(__file__).resolve().parent.parent

LESSON = """\
[[exercise]]
id = "one-step"
title = "One record, w = 1"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
[exercise.claims]
loss = 2
gradient = -4
w_new = 1.4

[[exercise]]
id = "half-rate"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [[2, 4]]
[exercise.claims]
w_new = 1.2
"""

OTHER = """\
[[exercise]]
id = "two-w"
recipe = "sgd_step"
[exercise.given]
w = 2
lr = 0.5
records = [[1, 3]]
[exercise.claims]
loss = 0.5
"""

COURSE = """\
[course]
title = "Training <Steps> & Co"
title_zh = "训练步骤"

[course.lessons.week1]
title = "Week 1: one step"
title_zh = "第 1 周：一步"
"""


def make_bank(tmp_path: Path, course: str | None = COURSE) -> Path:
    bank = tmp_path / "bank-folder"
    bank.mkdir()
    (bank / "week1.toml").write_text(LESSON, encoding="utf-8")
    (bank / "week2.toml").write_text(OTHER, encoding="utf-8")
    if course is not None:
        (bank / "derive.toml").write_text(course, encoding="utf-8")
    return bank


def build(capsys, bank: Path, site: Path, *more: str) -> int:
    code = main(["build", str(bank), "-o", str(site), "--quiet", *more])
    capsys.readouterr()
    return code


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._skip += 1
        href = dict(attrs).get("href")
        if tag == "a" and href is not None:
            self.hrefs.append(href)

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def test_the_students_folder_holds_only_pages_and_links_stay_inside(tmp_path, capsys):
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    assert build(capsys, bank, site) == 0
    students = site / "students"
    files = sorted(str(p.relative_to(students)) for p in students.rglob("*") if p.is_file())
    assert files == [
        "index.html", "index.zh.html",
        "week1/half-rate/page.en.html", "week1/half-rate/page.zh.html",
        "week1/index.html", "week1/index.zh.html",
        "week1/one-step/page.en.html", "week1/one-step/page.zh.html",
        "week1/sheet.html", "week1/sheet.zh.html",
        "week2/index.html", "week2/index.zh.html",
        "week2/sheet.html", "week2/sheet.zh.html",
        "week2/two-w/page.en.html", "week2/two-w/page.zh.html"]
    for name in files:
        page = students / name
        for href in parsed(page).hrefs:
            target = (page.parent / unquote(href)).resolve()
            if href.endswith("/"):
                target = target / "index.html"
            # every link is a rendered page of the students' folder itself: it works when only
            # students/ is published, and never opens a source (.md, .tex) or a key
            assert target.is_file(), (name, href)
            assert students.resolve() in target.parents, (name, href)
            assert target.suffix == ".html" and "key" not in target.name, (name, href)
    # the self-check pages are the exercise's own, with a link back to the lesson
    own = (site / "week1" / "one-step" / "page.en.html").read_text(encoding="utf-8")
    copy = (students / "week1" / "one-step" / "page.en.html").read_text(encoding="utf-8")
    assert copy.replace('<p style="margin:0 0 .5rem"><a href="../index.html">← Week 1: one '
                        'step</a></p>', "", 1) == own
    # the authors' index links to the students' site
    assert '<a href="students/index.html">' in (site / "index.html").read_text(encoding="utf-8")
    assert '<a href="students/index.zh.html">' in (site / "index.zh.html").read_text(
        encoding="utf-8")


def resolves_inside(students: Path) -> int:
    """Every link of every page of the folder, followed: the number followed."""
    n = 0
    for page in students.rglob("*.html"):
        for href in parsed(page).hrefs:
            target = (page.parent / unquote(href)).resolve()
            assert (target / "index.html" if href.endswith("/") else target).is_file(), href
            assert students.resolve() in target.parents, href
            n += 1
    return n


def test_a_file_name_with_hash_space_and_question_mark_is_linked(tmp_path, capsys):
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "wk #1?.toml").write_text(OTHER, encoding="utf-8")
    site = tmp_path / "site"
    assert build(capsys, bank, site) == 0
    students = site / "students"
    assert (students / "wk #1?" / "two-w" / "page.en.html").is_file()
    index = (students / "index.html").read_text(encoding="utf-8")
    assert 'href="wk%20%231%3F/index.html">wk #1?</a>' in index
    # course page (2 languages × 3 links), lesson pages (2 × 4), sheets (2 × 2), pages (2 × 1)
    assert resolves_inside(students) == 6 + 8 + 4 + 2


def test_titles_come_from_the_course_table_escaped(tmp_path, capsys):
    site = tmp_path / "site"
    assert build(capsys, make_bank(tmp_path), site) == 0
    students = site / "students"
    index = (students / "index.html").read_text(encoding="utf-8")
    assert "<h1>Training &lt;Steps&gt; &amp; Co</h1>" in index
    assert "<title>Training &lt;Steps&gt; &amp; Co</title>" in index
    assert ">Week 1: one step</a>" in index and ">week2</a>" in index  # a lesson not named
    assert ">2 exercises</span>" in index and ">1 exercise</span>" in index
    zh = (students / "index.zh.html").read_text(encoding="utf-8")
    assert "<h1>训练步骤</h1>" in zh and ">第 1 周：一步</a>" in zh and ">2 道练习</span>" in zh
    # the language switch: each page links to the other language's same page
    assert '<a href="index.zh.html" hreflang="zh" lang="zh">中文</a>' in index
    assert '<a href="index.html" hreflang="en" lang="en">English</a>' in zh
    sheet = (students / "week1" / "sheet.zh.html").read_text(encoding="utf-8")
    assert "<h1>第 1 周：一步</h1>" in sheet and '<p class="course">训练步骤</p>' in sheet
    assert '<a href="sheet.html" hreflang="en" lang="en">English</a>' in sheet


def test_without_a_course_table_the_site_is_titled_exercises(tmp_path, capsys):
    site = tmp_path / "site"
    assert build(capsys, make_bank(tmp_path, course=None), site) == 0
    index = (site / "students" / "index.html").read_text(encoding="utf-8")
    assert "<h1>Exercises</h1>" in index and "bank-folder" not in index
    zh = (site / "students" / "index.zh.html").read_text(encoding="utf-8")
    assert "<h1>练习</h1>" in zh and "bank-folder" not in zh
    sheet = (site / "students" / "week1" / "sheet.html").read_text(encoding="utf-8")
    assert "<h1>week1</h1>" in sheet and "bank-folder" not in sheet


@pytest.mark.parametrize("course, said", [
    ('[course]\ntitel = "x"\n', "key 'course.titel': is not a key of [course]"),
    ("[course]\ntitle = 3\n", "key 'course.title': is 3, not text"),
    ('[course.lessons.week1]\nname = "x"\n',
     "key 'course.lessons.week1.name': is not a key of a lesson"),
])
def test_a_wrong_course_table_is_one_line(tmp_path, capsys, course, said):
    bank = make_bank(tmp_path, course=course)
    code = main(["build", str(bank), "-o", str(tmp_path / "site"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "site").exists()


def sgd_answers(w: F, lr: F, x: F, y: F) -> dict[str, F]:
    """One SGD step of ŷ = w·x with L = (ŷ − y)²/2, by hand."""
    pred = w * x
    g = (pred - y) * x
    w_new = w - lr * g
    return {"prediction": pred, "loss": (pred - y) ** 2 / 2, "gradient": g, "w_new": w_new,
            "prediction_new": w_new * x, "loss_new": (w_new * x - y) ** 2 / 2}


def test_the_sheet_asks_each_claimed_question_without_its_answer(tmp_path, capsys):
    site = tmp_path / "site"
    assert build(capsys, make_bank(tmp_path), site) == 0
    sheet = site / "students" / "week1" / "sheet.html"
    html = sheet.read_text(encoding="utf-8")
    # one exercise section each, one numbered question per claim (3 and 1)
    sections = re.findall(r'<section class="exercise">(.*?)</section>', html, re.S)
    assert [s.count("<li>") for s in sections] == [3, 1]
    assert "<script" not in html and 'name="viewport"' in html
    text = "".join(parsed(sheet).text)
    # the answers, worked out by hand, appear nowhere in what the sheet shows
    one = sgd_answers(F(1), F(1, 10), F(2), F(4))
    assert (one["loss"], one["gradient"], one["w_new"]) == (2, -4, F(7, 5))
    half = sgd_answers(F(1), F(1, 20), F(2), F(4))
    assert half["w_new"] == F(6, 5)
    for shown in ("1.4", "7/5", "−4", "-4", "1.2", "6/5"):
        assert shown not in text, shown
    assert "Name:" in text and "Student number:" in text


def test_the_bundled_course_has_its_title(tmp_path, capsys):
    site = tmp_path / "site"
    code = main(["build", str(ROOT / "proofs" / "course"), "-o", str(site), "--quiet",
                 "--only", "questions", "--lang", "zh"])
    assert code == 0, capsys.readouterr().err
    index = (site / "students" / "index.html").read_text(encoding="utf-8")
    assert "<h1>AI 工程</h1>" in index and ">第 03 课：把一个训练步算完整</a>" in index
    lessons = re.findall(r'<a class="title" href="([^"/]+)/index.html">', index)
    assert lessons == ["lesson03", "lesson03-memory", "lesson03-resume", "reading", "variants"]


# ------------------------------------------------------------------------------ Chromium

PAGES = ["students/index.html", "students/index.zh.html", "students/week1/index.html",
         "students/week1/index.zh.html", "students/week1/sheet.html",
         "students/week1/sheet.zh.html", "students/week1/one-step/page.en.html",
         "students/week1/one-step/page.zh.html", "index.html", "index.zh.html"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    bank = make_bank(tmp)
    (bank / "week1.toml").write_text(LESSON.replace("w_new = 1.2", "w_new = 1.3"),
                                     encoding="utf-8")  # one wrong: its row says which claim
    code = main(["build", str(bank), "-o", str(tmp / "site"), "--quiet", "--no-cache"])
    assert code == 1
    return tmp / "site"


@pytest.mark.parametrize("name", PAGES)
def test_every_page_fits_a_375px_phone(browser, built, name):
    from browser import open_page

    phone = {"viewport": {"width": 375, "height": 700}, "device_scale_factor": 2,
             "is_mobile": True, "has_touch": True}  # without a viewport meta: 980 px wide
    with open_page(browser, built / name, device=phone) as opened:
        width = opened.page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 375, width
        assert opened.errors == [] and opened.csp_violations == []
        assert opened.requests_blocked == []


def test_the_authors_index_names_the_wrong_claim(built):
    index = (built / "index.html").read_text(encoding="utf-8")
    # half-rate claims w_new = 1.3; by hand w_new = 1 − 0.05·(1·2 − 4)·2 = 1.2
    assert sgd_answers(F(1), F(1, 20), F(2), F(4))["w_new"] == F(6, 5)
    assert '<span class="hint">w_new: claimed 1.3, derive finds 6/5</span>' in index
    zh = (built / "index.zh.html").read_text(encoding="utf-8")
    assert '<span class="hint">w_new：给出 1.3，derive 算得 6/5</span>' in zh


def test_the_sheet_leaves_room_to_answer_and_prints(browser, built, tmp_path):
    from browser import open_page

    with open_page(browser, built / "students/week1/sheet.html") as opened:
        page = opened.page
        rooms = page.evaluate("""() => [...document.querySelectorAll('section.exercise ol > li')]
            .map(li => parseFloat(getComputedStyle(li, '::after').minHeight))""")
        assert len(rooms) == 4 and all(r >= 100 for r in rooms), rooms
        page.emulate_media(media="print")
        hidden = page.evaluate("""() => [...document.querySelectorAll('.screen')]
            .map(e => getComputedStyle(e).display)""")
        assert hidden and set(hidden) == {"none"}
        pdf = page.pdf(format="A4")
        assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + \
            pdf.count(b"/Type /Page>") + len(re.findall(rb"/Type\s*/Page[^s]", pdf)) >= 1


# ------------------------------------------------------------------------------ properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PART = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
               min_size=1, max_size=12).filter(lambda p: p not in (".", ".."))


@settings(max_examples=300, deadline=None)
@given(st.lists(PART, min_size=1, max_size=4))
def test_a_link_reads_back_as_the_path_it_names(parts):
    """href() of any path is a URL path that a browser reads back as that path (the HTML
    entities undone, then the percent-encoding), with nothing that could end the attribute."""
    from html import unescape

    from derive.render.students import href

    path = "/".join(parts)
    made = href(path)
    assert not set(made) & set('"<> \n\t#?') and unquote(unescape(made)) == path


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(whitelist_categories=("L", "N", "P", "S"),
                             whitelist_characters=" <>&\"'"), max_size=60)
       .map(lambda t: unicodedata.normalize("NFC", t)).filter(str.strip))
def test_a_course_title_is_shown_as_written(title):
    """Whatever the author writes as the title (letters, digits, punctuation, symbols, spaces),
    the page's heading reads it back as written, its runs of spaces one: escaped, never
    markup."""
    from derive.cli.settings import Course
    from derive.render.students import students_index

    page = students_index(Course(title=title), [], "en", ("en",))
    found = re.search(r"<h1>(.*?)</h1>", page, re.S)
    heading = Links()
    heading.feed(found.group(1))
    assert "".join(heading.text) == re.sub(" +", " ", title).strip()
