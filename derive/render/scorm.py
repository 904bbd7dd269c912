"""SCORM 1.2 and SCORM 2004 (4th edition) packages of a lesson's self-check pages.

A lesson is one exercise file of a bank; its package has one SCO per exercise, each the
exercise's self-check page as `derive build` wrote it (page.{lang}.html: one file with its
script, style, fonts and data inline, so the page is the SCO's only file). The page itself
reports to the LMS (derive/render/web/scorm.js): the manifest only tells the LMS what to
launch. One SCO per exercise rather than one per lesson: each page is already a whole
activity with its own score, and an LMS lists the exercises of the lesson in its table of
contents (Moodle's SCORM activity, Canvas's import) and grades the lesson from them.

Everything here is printed, nothing computed: identifiers come from the lesson's file and the
exercises' ids (an injective escape to XML names), titles are escaped for XML, and the zip is
the same bytes for the same pages (entries sorted, one fixed date, fixed permissions).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

from derive.render.escape import escape_xml

VERSIONS = ("scorm12", "scorm2004")
MANIFEST = "imsmanifest.xml"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry's date: the earliest a zip can hold, so a rebuild is the same bytes."""


@dataclass(frozen=True)
class Sco:
    """One exercise's page in a package: its exercise id and the page's bytes."""

    id: str
    page: bytes


_NAME_CHAR = re.compile(r"[A-Za-z0-9-]")


def xml_name(text: str) -> str:
    """Text as a part of an XML name (xs:ID, NCName) and of a path in the zip: letters,
    digits and `-` kept, every other character `_` and its code point in six hex digits, so
    that two texts never give one name."""
    return "".join(ch if _NAME_CHAR.match(ch) else f"_{ord(ch):06x}" for ch in text)


def _href(sco: Sco, lang: str) -> str:
    return f"{xml_name(sco.id)}/page.{lang}.html"


_HEAD = {
    "scorm12": (
        '<manifest identifier="{id}" version="1.0"'
        ' xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"'
        ' xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd'
        ' http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">'
        "<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>"),
    "scorm2004": (
        '<manifest identifier="{id}" version="1"'
        ' xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"'
        ' xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"'
        ' xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"'
        ' xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"'
        ' xmlns:imsss="http://www.imsglobal.org/xsd/imsss"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd'
        ' http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd'
        ' http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd'
        ' http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd'
        ' http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">'
        "<metadata><schema>ADL SCORM</schema>"
        "<schemaversion>2004 4th Edition</schemaversion></metadata>"),
}
_SCORM_TYPE = {"scorm12": "adlcp:scormtype", "scorm2004": "adlcp:scormType"}
_SEQUENCING = {
    "scorm12": "",
    # the learner goes through the exercises in order or picks one from the table of contents
    "scorm2004": '<imsss:sequencing><imsss:controlMode choice="true" flow="true"/>'
                 "</imsss:sequencing>",
}


def manifest(version: str, lesson: str, title: str, scos: list[Sco], lang: str) -> str:
    """imsmanifest.xml of a lesson's package: one organization (the lesson, `title`), one
    item and one SCO resource per exercise, in the lesson's order, each titled by its
    exercise's id (a title could state an answer; an id is what the pages are named by)."""
    own = f"derive-{xml_name(lesson)}-{version}-{lang}"
    items = "".join(
        f'<item identifier="item-{xml_name(s.id)}" identifierref="sco-{xml_name(s.id)}">'
        f"<title>{escape_xml(s.id)}</title></item>" for s in scos)
    resources = "".join(
        f'<resource identifier="sco-{xml_name(s.id)}" type="webcontent" '
        f'{_SCORM_TYPE[version]}="sco" href="{_href(s, lang)}">'
        f'<file href="{_href(s, lang)}"/></resource>' for s in scos)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + _HEAD[version].format(id=own)
            + f'<organizations default="lesson"><organization identifier="lesson">'
            f"<title>{escape_xml(title)}</title>{items}{_SEQUENCING[version]}</organization>"
            f"</organizations><resources>{resources}</resources></manifest>\n")


def package(version: str, lesson: str, title: str, scos: list[Sco], lang: str) -> bytes:
    """The zip an LMS imports: imsmanifest.xml and each exercise's page, entries sorted by
    name, every one dated ZIP_DATE and deflated."""
    files = {MANIFEST: manifest(version, lesson, title, scos, lang).encode("utf-8")}
    files.update({_href(s, lang): s.page for s in scos})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever the building machine
            info.external_attr = 0o644 << 16
            z.writestr(info, files[name])
    return out.getvalue()


def package_name(lesson: str, version: str, lang: str) -> str:
    """The package's path under SITE/lms/: the lesson's path in the bank (its folders kept),
    then the version and the language (lesson03.scorm12.en.zip)."""
    return f"{lesson}.{version}.{lang}.zip"
