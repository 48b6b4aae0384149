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
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Ensures the operator page, as a real browser (Debian's headless Chromium, driven through its chromedriver)
 * renders it over the API, shows a source without quarantine rows at 100%, a source of unknown total with its
 * oldest-open age only, and a cohort moved to unindexable still counted as missing and listed in the register;
 * and that a cohort leads to its records and a record to its evidence. No document text reaches the page.
 * Keeps screenshots in {@code target/operator-page*.png}.
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

    private OperatorApi api;
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
        QuarantineStore store = new QuarantineStore(dataSource(), payloads,
                source -> Optional.of("contracts".equals(source) ? "legal-ops" : "platform"), nineDaysAgo);
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
        store.record(FailureEvidence.builder("contracts", "2026/scan-0.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
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

        OperatorService service = new OperatorService(dataSource(), store, payloads, Clock.systemUTC());
        api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), new OperatorApi.Backend(service,
                new Dispositions(dataSource(), store, payloads, Clock.systemUTC()), new OperatorRegisters(dataSource()),
                new org.ingestquarantine.operator.SourceCounts(service, new org.ingestquarantine.ingest.SourceListing(
                        List.of(), totals), totals)), TOKEN, Duration.ofDays(90),
                ApiLimits.from(new org.ingestquarantine.pipeline.Settings(
                        org.ingestquarantine.testsupport.ShippedProperties.lookup())));
        browser = startChromium();
        wait = new WebDriverWait(browser, WAIT);
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

        HttpResponse<String> disposed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/api/dispose"))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"fingerprint\": \"fp-encrypted\", \"reason\": \"vendor_encryption\", \"owner\": \"legal-ops\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(disposed.body()).isEqualTo("{\"unindexable\":4}");
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
