package org.ingestquarantine.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.operator.CanaryPolicy;
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.FolderDrains;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.ParsePool;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Ensures the operator page, as a real browser (Debian's headless Chromium, driven through its chromedriver)
 * renders it over the API, shows a source without quarantine rows at 100%, a source of unknown total with its
 * oldest-open age only, and a cohort moved to unindexable still counted as missing and listed in the register;
 * and that a cohort leads to its records and a record to its evidence, replays and stack trace (types and frames);
 * owners where the API has them, and a source filter kept in the URL fragment; and that an operator disposes of a
 * cohort and starts a canary drain from a cohort's page, through a dialog showing the exact selection and its count,
 * and finds each action in the actions view. No document text reaches the page. Keeps screenshots in
 * {@code target/operator-page*.png}.
 */
class OperatorPageIT extends PostgresTestBase {

    private static final Path CHROMIUM = Paths.get("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Paths.get("/usr/bin/chromedriver");
    private static final String TOKEN = "operator-page-test-token";
    private static final String OLD_PARSER = "pdfbox-3.0.4+iq-parse-1";
    /** Indexed text; the page must never show it. */
    private static final String DOCUMENT_TEXT = "Lessee shall return the premises broom-clean";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path temp;

    @RegisterExtension
    static final ParsePool PARSER = new ParsePool();

    private OperatorApi api;
    private QuarantineStore store;
    private WebDriver browser;
    private WebDriverWait wait;

    @BeforeAll
    static void requireChromium() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("the operator page test needs Debian's chromium and chromium-driver (" + CHROMIUM + ", " + CHROMEDRIVER
                    + "); install them: apt-get install -y chromium chromium-driver (.ci/services does)");
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        LocalPayloadStore payloads = new LocalPayloadStore(temp.resolve("objects"));
        MutableClock nineDaysAgo = new MutableClock(Instant.now().minus(Duration.ofDays(9).plusHours(2)));
        store = new QuarantineStore(dataSource(), payloads, OperatorPageIT::ownerOf, nineDaysAgo);
        DocumentIndex index = new DocumentIndex(dataSource(), 2);
        SourceTotals totals = new SourceTotals(dataSource(), Clock.systemUTC());

        // manuals: a folder source, every document indexed, no quarantine row
        for (int i = 0; i < 12; i++) {
            indexDoc(index, "manuals", "manual-" + i + ".pdf");
        }
        totals.record("manuals", 12, "folder-1", null);
        // web-intake: an HTTP source nobody counted, three records open for nine days
        for (int i = 0; i < 3; i++) {
            store.record(FailureEvidence.builder("web-intake", "upload/" + i + ".pdf").errorClass(ErrorClass.TRANSIENT)
                    .errorType("java.net.http.HttpTimeoutException").errorMessage("request timed out")
                    .errorFingerprint("fp-timeout").parserVersion(ParserVersion.CURRENT).stage("fetch").build());
        }
        // contracts: 30 documents, 20 indexed, 6 failing one way (older parser), 4 encrypted
        nineDaysAgo.advance(Duration.ofDays(7));
        for (int i = 0; i < 20; i++) {
            indexDoc(index, "contracts", "2026/lease-" + i + ".pdf");
        }
        for (int i = 0; i < 6; i++) {
            store.record(FailureEvidence.builder("contracts", "2026/scan-" + i + ".pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                    .errorType("java.io.IOException").errorMessage("Missing root object specification in trailer.")
                    .errorFingerprint("fp-xref").parserVersion(OLD_PARSER).stage("parse").contentType("application/pdf")
                    .sourceVersion("etag-" + i).build());
            nineDaysAgo.advance(Duration.ofMinutes(7));
        }
        // the repeat failure keeps a stack trace whose messages quote the document; the page shows none of them
        store.record(FailureEvidence.builder("contracts", "2026/scan-0.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .failure(new IllegalStateException("parse failed near: " + DOCUMENT_TEXT,
                        new java.io.IOException("Unknown operator '" + DOCUMENT_TEXT + "'")))
                .errorType("java.io.IOException").errorMessage("Missing root object specification in trailer.")
                .errorFingerprint("fp-xref").parserVersion(OLD_PARSER).stage("parse").build());
        for (int i = 0; i < 4; i++) {
            store.record(FailureEvidence.builder("contracts", "2026/sealed-" + i + ".pdf").errorClass(ErrorClass.PERMANENT_INPUT)
                    .errorType("org.ingestquarantine.parse.EncryptedPdfException").errorMessage("needs a user password")
                    .errorFingerprint("fp-encrypted").fingerprintVersion(ErrorFingerprint.VERSION).reasonCode("encrypted")
                    .parserVersion(ParserVersion.CURRENT)
                    .stage("parse").build());
        }
        totals.record("contracts", 30, "folder-1", null);
        try (var c = dataSource().getConnection(); var s = c.createStatement()) {
            s.execute("INSERT INTO drain_runs (run_id, started_by, started_at, finished_at, error_fingerprint, parser_version,"
                    + " limit_documents, rate_per_s, cohort_documents, selected, status, outcome_counts, source_requests)"
                    + " VALUES ('01JD0000000000000000000000', 'ops', now() - interval '2 days', now() - interval '2 days'"
                    + " + interval '40 seconds', 'fp-xref', '" + OLD_PARSER + "', 5, 2, 11, 5, 'finished',"
                    + " '{\"repaired_parser_fixed\": 3, \"deleted_at_source\": 2}', 8)");
            // a run that attempted none of its selection: shown as no drain, not as finished
            s.execute("INSERT INTO drain_runs (run_id, started_by, started_at, finished_at, error_fingerprint,"
                    + " limit_documents, rate_per_s, cohort_documents, selected, status, outcome_counts, source_requests)"
                    + " VALUES ('01JD0000000000000000000001', 'ops', now() - interval '1 day', now() - interval '1 day',"
                    + " 'fp-timeout', 5, 2, 1, 1, 'nothing_attempted', '{\"not_attempted:unknown_source\": 1}', 0)");
        }

        OperatorService service = new OperatorService(dataSource(), store, payloads, Clock.systemUTC(),
                List.of("manuals", "web-intake", "contracts")).withSourceOwners(OperatorPageIT::ownerOf);
        // the contracts' folder, for a canary: the oldest scan parses now, the others are gone
        Path contracts = Files.createDirectories(temp.resolve("contracts/2026"));
        Files.write(contracts.resolve("scan-0.pdf"), TextPdf.of("the scan, readable now"));
        var drain = FolderDrains.of(dataSource(), store, PARSER.parser(),
                java.util.Map.of("contracts", temp.resolve("contracts")), temp.resolve("work"));
        OperatorActions actions = new OperatorActions(dataSource(), new Dispositions(dataSource(), store, payloads,
                Clock.systemUTC()), Clock.systemUTC(), 25).withCanaries(() -> drain, new CanaryPolicy(5, 50));
        api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), new OperatorApi.Backend(service,
                actions, new OperatorRegisters(dataSource()),
                new org.ingestquarantine.operator.SourceCounts(service, new org.ingestquarantine.ingest.SourceListing(
                        List.of(), totals), totals)), TOKEN, Duration.ofDays(90),
                ApiLimits.from(new org.ingestquarantine.pipeline.Settings(
                        org.ingestquarantine.testsupport.ShippedProperties.lookup())));
        browser = startChromium();
        // a view re-renders its tables when its data arrives: an element read mid-render is stale, not a failure
        wait = new WebDriverWait(browser, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (api != null) {
            api.close();
        }
    }

    @Test
    void shouldShowCoverageCohortsTheRegisterAndTheEvidence() throws Exception {
        browser.get(base() + "/");
        WebElement tokenField = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertThat(browser.getPageSource()).doesNotContain("contracts");
        tokenField.sendKeys("wrong-token");
        browser.findElement(By.cssSelector("#login-form button")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "refused"));
        browser.findElement(By.id("token")).sendKeys(TOKEN);
        browser.findElement(By.cssSelector("#login-form button")).click();
        awaitView("overview");

        assertThat(cell("manuals", "coverage")).isEqualTo("100.0%");
        assertThat(cell("manuals", "total-by")).as("how the total was obtained, and when").matches("ingest, \\d+s ago");
        assertThat(cell("web-intake", "total-by")).isEqualTo("–");
        assertThat(cell("manuals", "oldest-open")).isEqualTo("none open");
        assertThat(cell("web-intake", "coverage")).isEqualTo("total unknown");
        assertThat(cell("web-intake", "oldest-open")).startsWith("9d 2h");
        assertThat(List.of(cell("web-intake", "total"), cell("web-intake", "indexed"), cell("web-intake", "open"),
                cell("web-intake", "unindexable"))).containsOnly("–");
        assertThat(cell("contracts", "coverage")).isEqualTo("66.6%");
        assertThat(cell("contracts", "open")).isEqualTo("10");
        assertThat(cohortFingerprints()).containsExactly("fp-xref", "fp-encrypted", "fp-timeout");
        // fingerprints given without an algorithm version are of none known: tagged; fp-encrypted's is the running one
        assertThat(browser.findElement(By.cssSelector("#cohorts tr[data-fingerprint='fp-xref'] td.fingerprint"))
                .getText()).contains("older fingerprint");
        assertThat(browser.findElements(By.cssSelector("#cohorts tr[data-fingerprint='fp-encrypted'] td.fingerprint span")))
                .isEmpty();
        assertThat(browser.findElement(By.id("unindexable")).getText()).contains("Nothing has been declared unindexable");
        assertThat(browser.findElement(By.id("drains")).getText()).contains("repaired_parser_fixed 3");
        assertThat(browser.findElement(By.cssSelector("#drains tr[data-run-id='01JD0000000000000000000001'] td.status"))
                .getText()).isEqualTo("nothing attempted (no drain)");

        String selection = "\"fingerprint\": \"fp-encrypted\"";
        String confirmation = new com.fasterxml.jackson.databind.ObjectMapper().readTree(post("/api/dispose/preview",
                "{" + selection + "}")).get("confirmation").asText();
        assertThat(post("/api/dispose", "{" + selection + ", \"reason\": \"vendor_encryption\", \"owner\":"
                + " \"legal-ops\", \"actor\": \"ops\", \"confirmation\": \"" + confirmation + "\"}"))
                .startsWith("{\"unindexable\":4,");
        browser.findElement(By.id("refresh")).click();
        awaitView("overview");

        assertThat(cell("contracts", "coverage")).as("coverage must not improve by reclassifying").isEqualTo("66.6%");
        assertThat(cell("contracts", "open")).isEqualTo("6");
        assertThat(cell("contracts", "unindexable")).isEqualTo("4");
        assertThat(cohortFingerprints()).containsExactly("fp-xref", "fp-timeout");
        WebElement register = browser.findElement(By.cssSelector("#unindexable tr[data-fingerprint='fp-encrypted']"));
        assertThat(register.getText()).contains("contracts", "vendor_encryption", "legal-ops", "4");
        assertThat(browser.getPageSource()).doesNotContain(DOCUMENT_TEXT);
        screenshot("operator-page.png");

        browser.findElement(By.cssSelector("#cohorts tr[data-fingerprint='fp-xref'] td.fingerprint a")).click();
        awaitView("cohort");
        List<WebElement> records = browser.findElements(By.cssSelector("#records tbody tr"));
        assertThat(records).hasSize(6);
        assertThat(records.get(0).getText()).contains("contracts", "2026/scan-0.pdf", "java.io.IOException");
        assertThat(browser.findElement(By.id("cohort-total")).getText()).isEqualTo("6");
        assertThat(browser.findElement(By.id("drain-command")).getText()).as("the drain selects what the view shows")
                .isEqualTo("bin/ingest-quarantine drain --fingerprint fp-xref --parser-version " + OLD_PARSER
                        + " --class ambiguous_parse --limit N --rate R");
        screenshot("operator-page-cohort.png");

        records.get(0).findElement(By.cssSelector("a")).click();
        awaitView("record");
        assertThat(evidence("doc_id")).isEqualTo("2026/scan-0.pdf");
        assertThat(evidence("error_message")).isEqualTo("Missing root object specification in trailer.");
        assertThat(evidence("parser_version")).isEqualTo(OLD_PARSER);
        assertThat(evidence("attempts")).isEqualTo("2");
        assertThat(browser.findElements(By.cssSelector("#attempts tbody tr"))).hasSize(2);
        assertThat(browser.getPageSource()).doesNotContain(DOCUMENT_TEXT);
        screenshot("operator-page-record.png");

        browser.navigate().back();
        awaitView("cohort");
        assertThat(browser.findElements(By.cssSelector("#records tbody tr"))).hasSize(6);
    }

    /**
     * A record's view shows its failure's stack trace from the payload store in a pre, types and frames only (its
     * messages quote the document), and its replay history; a record without a trace says so.
     */
    @Test
    void shouldShowARecordsStackTraceWithoutItsMessagesAndItsReplays() throws Exception {
        String scan = dlqIdOf("contracts", "2026/scan-0.pdf");
        try (var c = dataSource().getConnection(); var s = c.createStatement()) {
            s.execute("UPDATE quarantine SET replay_count = 2, last_replayed_at = now() - interval '2 days',"
                    + " last_drain_run_id = '01JD0000000000000000000000' WHERE dlq_id = '" + scan + "'");
        }
        login("/#record/" + scan);
        awaitView("record");

        WebElement trace = browser.findElement(By.cssSelector("#stack-trace-section pre#stack-trace"));
        // textContent: the pre's text as put there (getText renders a tab as a space)
        assertThat(trace.getDomProperty("textContent")).startsWith("java.lang.IllegalStateException: [message left out]\n\tat ")
                .contains("\nCaused by: java.io.IOException: [message left out]")
                .contains("org.ingestquarantine.web.OperatorPageIT.setUp(OperatorPageIT.java:");
        assertThat(browser.getPageSource()).doesNotContain(DOCUMENT_TEXT).doesNotContain("Unknown operator");
        assertThat(replay("replay_count")).isEqualTo("2");
        assertThat(replay("last_replayed_at")).contains("2d 0h ago");
        assertThat(replay("last_drain_run_id")).isEqualTo("01JD0000000000000000000000");
        ((org.openqa.selenium.JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView()", trace);
        screenshot("operator-page-stack-trace.png");

        browser.get(base() + "/#record/" + dlqIdOf("contracts", "2026/sealed-0.pdf"));
        awaitView("record");
        assertThat(browser.findElement(By.id("stack-trace")).getText()).isEqualTo("No stack trace: none recorded.");
        assertThat(replay("replay_count")).isEqualTo("0");
        assertThat(replay("last_drain_run_id")).isEqualTo("–");
    }

    /**
     * Owners where the API has them (each source's configured one, each cohort's, each record's), and a source filter
     * on the overview and the cohort's records, kept in the URL fragment: a reload and the back button keep it.
     */
    @Test
    void shouldShowOwnersAndFilterBySourceInTheFragment() throws Exception {
        login("/");
        awaitView("overview");
        assertThat(cell("contracts", "owner")).isEqualTo("legal-ops");
        assertThat(cell("web-intake", "owner")).isEqualTo("platform");
        assertThat(cohortCell("fp-xref", "owners")).isEqualTo("legal-ops");
        assertThat(cohortCell("fp-timeout", "owners")).isEqualTo("platform");

        new Select(browser.findElement(By.id("source-filter"))).selectByValue("web-intake");
        wait.until(d -> d.getCurrentUrl().endsWith("#overview?source=web-intake") && cohortFingerprints().equals(List.of("fp-timeout")));
        awaitView("overview");
        assertThat(browser.findElements(By.cssSelector("#coverage tbody tr"))).extracting(r -> r.getDomAttribute("data-source"))
                .containsExactly("web-intake");
        browser.navigate().refresh();
        awaitView("overview");
        assertThat(cohortFingerprints()).as("the filter is in the fragment").containsExactly("fp-timeout");
        assertThat(new Select(browser.findElement(By.id("source-filter"))).getFirstSelectedOption().getText())
                .isEqualTo("web-intake");
        screenshot("operator-page-source.png");

        browser.findElement(By.cssSelector("#cohorts tr[data-fingerprint='fp-timeout'] td.fingerprint a")).click();
        awaitView("cohort");
        assertThat(browser.getCurrentUrl()).contains("source=web-intake");
        assertThat(browser.findElement(By.id("cohort-source")).getText()).isEqualTo("web-intake (owner platform)");
        assertThat(browser.findElements(By.cssSelector("#records tbody tr td.owner"))).hasSize(3)
                .extracting(WebElement::getText).containsOnly("platform");
        assertThat(browser.findElement(By.id("drain-command")).getText()).contains("--source web-intake");

        new Select(browser.findElement(By.id("source-filter"))).selectByValue("contracts");
        wait.until(d -> d.getCurrentUrl().contains("source=contracts"));
        awaitView("cohort");
        wait.until(d -> d.findElements(By.cssSelector("#records tbody tr")).isEmpty());
        assertThat(browser.findElement(By.id("records")).getText()).contains("No open record in this cohort");

        browser.navigate().back();
        wait.until(d -> d.getCurrentUrl().contains("source=web-intake"));
        awaitView("cohort");
        wait.until(d -> d.findElements(By.cssSelector("#records tbody tr")).size() == 3);
        assertThat(browser.getPageSource()).doesNotContain(DOCUMENT_TEXT);
    }

    private void login(String path) {
        browser.get(base() + path);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(TOKEN);
        browser.findElement(By.cssSelector("#login-form button")).click();
    }

    private static Optional<String> ownerOf(String source) {
        return Optional.of("contracts".equals(source) ? "legal-ops" : "platform");
    }

    private static String dlqIdOf(String source, String docId) throws Exception {
        try (var c = dataSource().getConnection(); var s = c.prepareStatement(
                "SELECT dlq_id FROM quarantine WHERE source = ? AND doc_id = ?")) {
            s.setString(1, source);
            s.setString(2, docId);
            try (var rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1).trim();
            }
        }
    }

    private String replay(String field) {
        return browser.findElement(By.cssSelector("#replays tr[data-field='" + field + "'] td")).getText().trim();
    }

    private String cohortCell(String fingerprint, String column) {
        return browser.findElement(By.cssSelector("#cohorts tr[data-fingerprint='" + fingerprint + "'] td." + column))
                .getText().trim();
    }

    /**
     * From a cohort's page: "Dispose…", reason and owner, the preview (the exact selection, its 4 records of one
     * source), confirmed; the dialog shows the result and the trail entry, the cohort is gone from the open ones, and
     * the actions view lists the dispose with its actor and channel.
     */
    @Test
    void shouldDisposeACohortFromThePageThroughTheConfirmation() throws Exception {
        WebElement dialog = openActionDialog("fp-encrypted", "dispose-open");
        dialog.findElement(By.id("action-reason")).sendKeys("vendor_encryption");
        dialog.findElement(By.id("action-owner")).sendKeys("legal-ops");
        dialog.findElement(By.id("action-actor")).sendKeys("carol");
        dialog.findElement(By.id("action-preview")).click();

        WebElement preview = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("action-preview-area")));
        assertThat(preview.findElement(By.id("action-selection")).getText()).contains("fp-encrypted", "permanent_input",
                ParserVersion.CURRENT);
        assertThat(preview.findElement(By.id("action-count")).getText()).startsWith("4 open records move to unindexable"
                + " (reason vendor_encryption, owner legal-ops)");
        assertThat(preview.findElement(By.id("action-by-source")).getText()).contains("contracts 4");
        assertThat(store.find("contracts", "2026/sealed-0.pdf").orElseThrow().disposition())
                .as("nothing changes before the confirmation").isEqualTo(Disposition.OPEN);
        screenshot("operator-page-dispose-preview.png");
        preview.findElement(By.id("action-confirm")).click();

        WebElement result = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("action-result")));
        assertThat(result.findElement(By.id("action-outcome")).getText()).isEqualTo("4 records moved to unindexable.");
        WebElement entry = result.findElement(By.cssSelector("#action-entry tbody tr"));
        assertThat(entry.getDomAttribute("data-action")).isEqualTo("dispose");
        assertThat(entry.getText()).contains("carol", "page", "finished", "unindexable 4");
        String actionId = entry.getDomAttribute("data-action-id");
        assertThat(store.find("contracts", "2026/sealed-0.pdf").orElseThrow().disposition())
                .isEqualTo(Disposition.UNINDEXABLE);
        result.findElement(By.id("action-trail-link")).click();

        awaitView("actions");
        List<WebElement> trail = browser.findElements(By.cssSelector("#actions tbody tr"));
        assertThat(trail).hasSize(1);
        assertThat(trail.get(0).getDomAttribute("data-action-id")).isEqualTo(actionId);
        assertThat(trail.get(0).findElement(By.cssSelector("td.actor")).getText()).isEqualTo("carol");
        assertThat(trail.get(0).findElement(By.cssSelector("td.channel")).getText()).isEqualTo("page");
        assertThat(trail.get(0).findElement(By.cssSelector("td.selection")).getText()).contains("fp-encrypted",
                "class permanent_input", "source any");
        assertThat(trail.get(0).findElement(By.cssSelector("td.outcomes")).getText()).isEqualTo("unindexable 4");
        assertThat(browser.getPageSource()).doesNotContain(DOCUMENT_TEXT);
        screenshot("operator-page-actions.png");
    }

    /**
     * From a cohort's page: "Canary drain…" of 2 records, the preview (2 of the cohort's 6, their source, the
     * forecast), confirmed; the dialog shows the run's counts, the oldest scan repaired (its content changed) and the
     * next deleted at its source, and the actions view and the drain runs list the canary.
     */
    @Test
    void shouldStartACanaryDrainFromThePage() throws Exception {
        WebElement dialog = openActionDialog("fp-xref", "drain-open");
        WebElement limit = dialog.findElement(By.id("action-limit"));
        limit.clear();
        limit.sendKeys("2");
        dialog.findElement(By.id("action-actor")).sendKeys("dave");
        dialog.findElement(By.id("action-preview")).click();

        WebElement preview = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("action-preview-area")));
        assertThat(preview.findElement(By.id("action-selection")).getText()).contains("fp-xref", OLD_PARSER, "2");
        assertThat(preview.findElement(By.id("action-count")).getText()).startsWith("Selects the oldest 2 of 6 open records");
        assertThat(preview.findElement(By.id("action-by-source")).getText()).contains("contracts 2");
        preview.findElement(By.id("action-confirm")).click();

        WebElement result = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("action-result")));
        assertThat(result.findElement(By.id("action-outcome")).getText()).matches("Drain run \\w{26}: 2 of 6 selected, 3"
                + " source requests\\.");
        // the record holds the etag it failed with; the folder serves other bytes now: changed content
        assertThat(result.findElement(By.cssSelector("p.outcomes")).getText()).contains("deleted_at_source 1",
                "repaired_content_changed 1");
        assertThat(store.find("contracts", "2026/scan-0.pdf").orElseThrow().disposition())
                .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
        assertThat(store.find("contracts", "2026/scan-1.pdf").orElseThrow().disposition())
                .isEqualTo(Disposition.DELETED_AT_SOURCE);
        screenshot("operator-page-canary.png");
        result.findElement(By.id("action-close")).click();
        awaitView("cohort");
        assertThat(browser.findElements(By.cssSelector("#records tbody tr"))).as("the cohort drawn again").hasSize(4);

        browser.findElement(By.id("actions-link")).click();
        awaitView("actions");
        WebElement canary = browser.findElement(By.cssSelector("#actions tbody tr[data-action='drain']"));
        assertThat(canary.findElement(By.cssSelector("td.actor")).getText()).isEqualTo("dave");
        assertThat(canary.findElement(By.cssSelector("td.selection")).getText()).contains("fp-xref", "limit 2");
        assertThat(canary.findElement(By.cssSelector("td.n.selected")).getText()).isEqualTo("2");
        browser.get(base() + "/#");
        awaitView("overview");
        assertThat(browser.findElement(By.id("drains")).getText()).contains("page:dave");
    }

    /** Logs in, opens the cohort of {@code fingerprint} from the overview, and there the dialog of {@code button}. */
    private WebElement openActionDialog(String fingerprint, String button) {
        browser.get(base() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(TOKEN);
        browser.findElement(By.cssSelector("#login-form button")).click();
        awaitView("overview");
        browser.findElement(By.cssSelector("#cohorts tr[data-fingerprint='" + fingerprint + "'] td.fingerprint a"))
                .click();
        awaitView("cohort");
        browser.findElement(By.id(button)).click();
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("action-dialog")));
    }

    /** @return the API's answer to a POST of {@code body} with the token */
    private String post(String path, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private String base() {
        return "http://127.0.0.1:" + api.port();
    }

    private void awaitView(String view) {
        wait.until(d -> view.equals(d.findElement(By.tagName("body")).getDomAttribute("data-loaded"))
                || d.findElement(By.id("error")).isDisplayed());
        assertThat(browser.findElement(By.id("error")).isDisplayed())
                .as("page error: %s", browser.findElement(By.id("error")).getText()).isFalse();
    }

    private String cell(String source, String column) {
        return browser.findElement(By.cssSelector("#coverage tr[data-source='" + source + "'] td." + column)).getText().trim();
    }

    private List<String> cohortFingerprints() {
        return browser.findElements(By.cssSelector("#cohorts tbody tr")).stream()
                .map(r -> r.getDomAttribute("data-fingerprint")).toList();
    }

    private String evidence(String field) {
        return browser.findElement(By.cssSelector("#evidence tr[data-field='" + field + "'] td")).getText().trim();
    }

    private void screenshot(String name) throws Exception {
        Path target = Paths.get("target", name);
        Files.createDirectories(target.getParent());
        Files.copy(((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath(), target,
                StandardCopyOption.REPLACE_EXISTING);
    }

    private WebDriver startChromium() throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-extensions", "--window-size=1440,1200", "--user-data-dir=" + Files.createTempDirectory(temp, "chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static void indexDoc(DocumentIndex index, String source, String docId) {
        index.index(new IndexedDocument(source, docId, "v1", Instant.now(), null, ParserVersion.CURRENT, "c1", "e1", 1,
                List.of(new IndexedChunk(0, DOCUMENT_TEXT, new float[] {1, 0}, 1, 1))));
    }
}
