"""The review app in a real headless Chromium (Selenium): queue, filters, keyboard verdicts
from two reviewers, reload, concurrent sessions, and the release that requires review.

Screenshots of the item page at 1400 and 390 px go to the test's directory (and to
$SCIGATE_REVIEW_SHOTS when set, for looking at them)."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from _cli import run_main
from gate._dbfactory import CANDIDATES
from scigate.gate._export import accepted_records
from scigate.review import TOOLGATE, ReviewApp, serve_in_thread, url_of
from scigate.store import Store

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None, reason="needs chromium and chromedriver"
    ),
]


def _browser(tmp_path: Path, name: str, width: int = 1400) -> webdriver.Chrome:
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={tmp_path / f'profile-{name}'}",
        f"--window-size={width},1000",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    return driver


def _sign_in(driver: webdriver.Chrome, app: ReviewApp, name: str) -> None:
    driver.get(url_of(app, "127.0.0.1"))
    box = WebDriverWait(driver, 30).until(ec.presence_of_element_located((By.ID, "name")))
    box.send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "#login button").click()
    WebDriverWait(driver, 30).until(ec.presence_of_element_located((By.ID, "queue")))
    assert driver.find_element(By.ID, "reviewer").text == name


def _rows(driver: webdriver.Chrome) -> list[str]:
    return [
        r.get_attribute("data-id")
        for r in driver.find_elements(By.CSS_SELECTOR, "#queue tbody tr[data-id]")
    ]


def _press(driver: webdriver.Chrome, keys: str) -> None:
    """Type verdict keys on the item page, waiting for each save to be confirmed."""
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        before = driver.find_element(By.ID, "status").text
        ActionChains(driver).send_keys(key).perform()
        if key in "ynu":
            WebDriverWait(driver, 30).until(
                lambda d, b=before: (
                    (
                        d.find_element(By.ID, "status").text.startswith("saved")
                        and d.find_element(By.ID, "status").text != b
                    )
                    or "not saved" in d.find_element(By.ID, "status").text
                )
            )
            assert "not saved" not in driver.find_element(By.ID, "status").text


def _open_item(driver: webdriver.Chrome, app: ReviewApp, item: str) -> None:
    driver.get(f"http://127.0.0.1:{app.port}/item/{item}")
    WebDriverWait(driver, 30).until(ec.presence_of_element_located((By.ID, "review")))


def _pressed(driver: webdriver.Chrome) -> dict[str, str]:
    out = {}
    for c in driver.find_elements(By.CSS_SELECTOR, ".criterion"):
        on = c.find_elements(By.CSS_SELECTOR, ".v.on")
        out[c.get_attribute("data-criterion")] = on[0].get_attribute("data-verdict") if on else ""
    return out


@pytest.fixture
def app(gate_db: tuple[Path, list[str]]) -> Iterator[ReviewApp]:
    path, _ = gate_db
    review = ReviewApp(path, TOOLGATE)
    srv = serve_in_thread(review)
    yield review
    srv.shutdown()
    srv.server_close()


def test_review_in_the_browser(app: ReviewApp, gate_db, tmp_path: Path) -> None:
    path, ids = gate_db
    with Store(path) as store:
        c4, c8 = (r["id"] for r in accepted_records(store))  # the two accepted items
        question = store.get_candidate(c4).question
        flagged = [
            r["candidate_id"]
            for r in store.query("SELECT * FROM v_candidate_status")
            if r["solve"] == "fail"
        ]
        screened = [
            r["candidate_id"]
            for r in store.query("SELECT * FROM v_candidate_status")
            if r["status"] == "rejected-screen"
        ]
    ada = _browser(tmp_path, "ada")
    bo = _browser(tmp_path, "bo")
    try:
        # -- queue and filters ------------------------------------------------------------
        _sign_in(ada, app, "Ada")
        assert _rows(ada) == ids
        ada.find_element(By.ID, "f-flagged").click()
        ada.find_element(By.ID, "apply").click()
        WebDriverWait(ada, 30).until(lambda d: "flagged=1" in d.current_url)
        assert _rows(ada) == flagged and flagged
        ada.get(f"http://127.0.0.1:{app.port}/")
        Select(ada.find_element(By.ID, "f-stage")).select_by_visible_text("screen")
        ada.find_element(By.ID, "apply").click()
        WebDriverWait(ada, 30).until(lambda d: "stage=screen" in d.current_url)
        assert _rows(ada) == screened and screened
        Select(ada.find_element(By.ID, "f-stage")).select_by_index(0)
        Select(ada.find_element(By.ID, "f-family")).select_by_visible_text("deformed-mesh")
        ada.find_element(By.ID, "apply").click()
        WebDriverWait(ada, 30).until(lambda d: "family=deformed-mesh" in d.current_url)
        assert _rows(ada) == [ids[i] for i, c in enumerate(CANDIDATES) if c[3] == "deformed-mesh"]

        # -- Ada reviews c4 with the keyboard -----------------------------------------------
        ada.find_element(By.LINK_TEXT, "clear").click()
        WebDriverWait(ada, 30).until(lambda d: len(_rows(d)) == len(ids))
        ada.find_element(By.CSS_SELECTOR, f'tr[data-id="{c4}"] a.open').click()
        WebDriverWait(ada, 30).until(ec.presence_of_element_located((By.ID, "review")))
        assert "Gate results" in ada.page_source and "Screen calls" in ada.page_source
        assert ada.find_element(By.ID, "question").text.strip() == question.strip()
        _press(ada, "yyyu")  # correct, well-posed, needs software: yes; distractors: unsure
        _press(ada, "4")
        ada.find_element(By.CSS_SELECTOR, '.criterion[data-criterion="distractors"] .note')
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(ada).send_keys("e").perform()
        ActionChains(ada).send_keys("B and D are far off\n").perform()
        WebDriverWait(ada, 30).until(
            lambda d: d.find_element(By.ID, "status").text == "saved distractors = unsure"
        )
        # -- Bo, in his own session, on the same item -----------------------------------
        _sign_in(bo, app, "Bo")
        _open_item(bo, app, c4)
        assert _pressed(bo) == dict.fromkeys(TOOLGATE.criterion_keys(), "")
        for key in TOOLGATE.criterion_keys():
            button = bo.find_element(By.CSS_SELECTOR, f'.criterion[data-criterion="{key}"] .v-yes')
            bo.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
            button.click()
            WebDriverWait(bo, 30).until(
                lambda d, k=key: d.find_element(By.ID, "status").text == f"saved {k} = yes"
            )
        # -- reload: both find their verdicts ---------------------------------------------
        ada.refresh()
        WebDriverWait(ada, 30).until(ec.presence_of_element_located((By.ID, "review")))
        assert _pressed(ada) == {
            "correct": "yes",
            "well_posed": "yes",
            "needs_software": "yes",
            "distractors": "unsure",
        }
        note = ada.find_element(By.CSS_SELECTOR, '.criterion[data-criterion="distractors"] .note')
        assert note.get_attribute("value") == "B and D are far off"
        ballots = ada.find_element(By.ID, "ballots").text
        assert "Ada" in ballots and "Bo" in ballots
        assert ada.find_element(By.ID, "notes").text == "Ada on distractors: B and D are far off"
        assert ada.find_element(By.ID, "decision").text == "pending"
        _open_item(bo, app, c4)
        assert set(_pressed(bo).values()) == {"yes"}

        # -- screenshots at 1400 and 390 px -----------------------------------------------
        shots = [tmp_path / "item-1400.png", tmp_path / "item-390.png"]
        ada.set_window_size(1400, 1000)
        ada.save_screenshot(str(shots[0]))
        ada.set_window_size(390, 844)
        ada.refresh()
        WebDriverWait(ada, 30).until(ec.presence_of_element_located((By.ID, "review")))
        width = ada.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390  # nothing wider than the phone's screen
        ada.save_screenshot(str(shots[1]))
        panel = ada.find_element(By.ID, "review")
        ada.execute_script("arguments[0].scrollIntoView({block: 'start'})", panel)
        shots.append(tmp_path / "item-390-verdict.png")
        ada.save_screenshot(str(shots[2]))
        ada.get(f"http://127.0.0.1:{app.port}/")
        WebDriverWait(ada, 30).until(ec.presence_of_element_located((By.ID, "queue")))
        assert ada.execute_script("return document.documentElement.scrollWidth") <= 390
        shots.append(tmp_path / "queue-390.png")
        ada.save_screenshot(str(shots[3]))
        if os.environ.get("SCIGATE_REVIEW_SHOTS"):
            dest = Path(os.environ["SCIGATE_REVIEW_SHOTS"])
            dest.mkdir(parents=True, exist_ok=True)
            for s in shots:
                shutil.copy(s, dest / s.name)
        ada.set_window_size(1400, 1000)

        # -- two sessions saving at once -----------------------------------------------------
        errors: list[BaseException] = []

        def review(driver: webdriver.Chrome, verdicts: str) -> None:
            try:
                for item in (c8, ids[0], ids[1]):
                    _open_item(driver, app, item)
                    _press(driver, verdicts)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [
            threading.Thread(target=review, args=(ada, "yyyy")),
            threading.Thread(target=review, args=(bo, "ynyy")),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with Store(path) as store:
            rows = store.reviews()
        assert len(rows) == 2 * 4 * 4  # two reviewers, four items, four criteria
        got = {(r["reviewer"], r["item_id"], r["criterion"]): r["verdict"] for r in rows}
        assert got[("Bo", c8, "well_posed")] == "no" and got[("Ada", c8, "well_posed")] == "yes"

        # -- a third reviewer decides c4 (approved) and c8 (rejected) -------------------------
        bo.delete_all_cookies()
        _sign_in(bo, app, "Cy")
        _open_item(bo, app, c4)
        _press(bo, "yyyy")
        assert bo.find_element(By.ID, "decision").text == "approved"
        _open_item(bo, app, c8)
        _press(bo, "yuyy")
        assert bo.find_element(By.ID, "decision").text == "rejected"
    finally:
        ada.quit()
        bo.quit()

    rel = tmp_path / "rel"
    code, _, stderr = run_main(
        "gate", "export", "--db", str(path), "--out", str(tmp_path / "a.jsonl"),
        "--release", str(rel), "--require-review",
    )  # fmt: skip
    assert code == 0, stderr
    pool = [json.loads(x) for x in (rel / "pool.jsonl").read_text().splitlines()]
    assert [p["id"] for p in pool] == [c4]
