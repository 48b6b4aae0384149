package org.ingestquarantine.app;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.camel.CamelContext;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.ingest.FetchCancellation;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.FolderLister;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.ingest.HttpTimeouts;
import org.ingestquarantine.ingest.S3Clients;
import org.ingestquarantine.ingest.S3Connector;
import org.ingestquarantine.ingest.S3Lister;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceLister;
import org.ingestquarantine.ingest.SourceListing;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.pipeline.Settings;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The sources: where they may be read ({@code sources.<name>.file-roots}, {@code http-allow},
 * {@code http-allow-private}, {@code s3-allow}: {@link SourceAccess}), their connectors by URI scheme with the HTTP
 * bounds ({@code http.*}: {@link HttpTimeouts}) and the shared request buckets ({@code source-requests.*}:
 * {@link SourceRequestThrottle}), and their listing ({@code sources.count-max-documents}: {@link SourceListing}).
 */
final class SourceWiring {

    private SourceWiring() {
    }

    /**
     * @return the sources of every property source Camel knows ({@code sources.<name>.*}), system
     *     properties ({@code -D}) winning over the files; a missing root fails start-up naming its property
     */
    static SourceAccess sourceAccess(CamelContext context) {
        Properties p = context.getPropertiesComponent().loadProperties(k -> k.startsWith(SourceAccess.PREFIX));
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(SourceAccess.PREFIX))
                .forEach(k -> p.setProperty(k, System.getProperty(k)));
        return SourceAccess.fromProperties(p);
    }

    /**
     * @param closeLater takes what the listing opened (an S3 client) to close when its owner stops
     * @return the listing of the sources by every lister there is (a folder walk of {@code file-roots}, a
     *     ListObjectsV2 of {@code s3-allow}, bounded by {@value FolderLister#MAX_DOCUMENTS_PROPERTY})
     */
    static SourceListing sourceListing(Settings settings, SourceAccess access, SourceTotals totals, Database database,
                                       Consumer<AutoCloseable> closeLater) {
        long max = settings.requiredNumber(FolderLister.MAX_DOCUMENTS_PROPERTY);
        List<SourceLister> listers = new ArrayList<>();
        listers.add(new FolderLister(access, max));
        // an S3 client only where a source lists S3 (it needs a region); closed with its owner
        if (access.sourceNames().stream().anyMatch(s -> !access.s3Allow(s).isEmpty())) {
            S3Client client = S3Clients.forSources(settings, httpTimeouts(settings));
            closeLater.accept(client);
            listers.add(new S3Lister(access, client, sharedThrottle(settings, database), max));
        }
        return new SourceListing(listers, totals);
    }

    /**
     * @return the listing of the sources ({@link #sourceListing}), also run every
     *     {@value SourceListing#INTERVAL_PROPERTY} when {@value AppConfiguration#LIST_SOURCES} is {@code true} and the
     *     interval is not 0 (stopped with the context)
     */
    static SourceListing listing(Wiring w, SourceAccess access, SourceTotals totals, Database database) {
        Settings settings = w.settings();
        SourceListing listing = sourceListing(settings, access, totals, database, w::closeOnStop);
        Duration listEvery = settings.requiredMillis(SourceListing.INTERVAL_PROPERTY);
        if (Boolean.parseBoolean(settings.string(AppConfiguration.LIST_SOURCES, "false")) && !listEvery.isZero()) {
            w.closeOnStop(listing.every(listEvery, access::sourceNames));
        }
        return listing;
    }

    /** @return the HTTP connector's bounds, {@code http.*} */
    static HttpTimeouts httpTimeouts(Settings settings) {
        return new HttpTimeouts(settings.requiredMillis("http.connect-timeout-ms"),
                settings.requiredMillis("http.idle-timeout-ms"), settings.requiredMillis("http.body-deadline-ms"),
                (int) settings.requiredNumber("http.max-redirects"));
    }

    /**
     * The source connectors by URI scheme, with HTTP requests that {@code fetches} can cancel, each taking a token
     * of its origin's shared bucket before every HEAD and GET when {@code source-requests.max-per-s} is set (the
     * drain draws from the same buckets).
     */
    static Map<String, SourceConnector> connectors(Settings settings, Database database, HttpTimeouts http,
                                                   FetchCancellation fetches) {
        return connectors(settings, http, fetches, sharedThrottle(settings, database));
    }

    /**
     * The same, taking tokens from {@code throttle}: the drain passes the shared buckets'
     * {@link SourceRequestThrottle#slackOnly()} view, so it takes only what the live connectors leave.
     */
    static Map<String, SourceConnector> connectors(Settings settings, HttpTimeouts http, FetchCancellation fetches,
                                                   SourceRequestThrottle throttle) {
        Map<String, SourceConnector> connectors = Map.of("file", new FolderConnector(http.bodyDeadline()),
                "http", new HttpConnector("http", http, fetches), "https", new HttpConnector("https", http, fetches));
        Map<String, SourceConnector> throttled = new HashMap<>();
        connectors.forEach((scheme, c) -> throttled.put(scheme, throttle.around(c)));
        // takes the tokens itself: a HEAD refused 403/404 is asked once more (S3Connector)
        throttled.put("s3", new S3Connector(() -> S3Clients.forSources(settings, http), http, throttle, fetches));
        return Map.copyOf(throttled);
    }

    /**
     * @return the shared bucket of source requests (the live path's priority view), or unlimited when
     *     {@code source-requests.max-per-s} is unset
     */
    static SourceRequestThrottle sharedThrottle(Settings settings, Database database) {
        return settings.find("source-requests.max-per-s")
                .map(rate -> SourceRequestThrottle.sharedInPostgres(database.dataSource(), Double.parseDouble(rate),
                        settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY),
                        (int) settings.requiredNumber(SourceRequestThrottle.LIVE_RESERVE_PROPERTY)))
                .orElse(SourceRequestThrottle.unlimited());
    }
}
