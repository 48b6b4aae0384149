package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.ingestquarantine.pipeline.LogSafe;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists an S3 source for coverage: ListObjectsV2 over each of its {@code sources.<name>.s3-allow} entries
 * (an entry covered by another is listed once, under the wider one), page by page, counting the objects
 * {@link S3Connector} reads as documents: not the {@code /}-ending "folder" markers, not keys
 * {@link S3Location} refuses. Every page request first takes a token of the {@link SourceRequestThrottle},
 * as the connector's requests do. A listing that passes {@code maxDocuments} fails instead of counting on.
 * Thread-safe.
 */
public final class S3Lister implements SourceLister {

    private final SourceAccess access;
    private final S3Client client;
    private final SourceRequestThrottle throttle;
    private final long maxDocuments;
    private Integer pageKeys;

    /**
     * @param access the configured sources
     * @param client the client to list with (the sources' client, {@link S3Clients#forSources}); the caller closes it
     * @param throttle takes a token before every page request
     * @param maxDocuments most objects counted before the listing fails, at least 1
     */
    public S3Lister(SourceAccess access, S3Client client, SourceRequestThrottle throttle, long maxDocuments) {
        if (maxDocuments < 1) {
            throw new IllegalArgumentException("the most documents a listing counts must be at least 1, was " + maxDocuments);
        }
        this.access = Objects.requireNonNull(access, "access");
        this.client = Objects.requireNonNull(client, "client");
        this.throttle = Objects.requireNonNull(throttle, "throttle");
        this.maxDocuments = maxDocuments;
    }

    /**
     * @param keys most keys per page, for tests of the paging (S3's own page is 1000)
     * @return this lister
     */
    S3Lister pageKeys(int keys) {
        pageKeys = keys;
        return this;
    }

    /** @return stored as the total's {@code counted_by} */
    @Override
    public String version() {
        return S3Connector.VERSION;
    }

    /**
     * @param source a source name
     * @return whether it has {@code s3-allow} entries
     */
    @Override
    public boolean canList(String source) {
        return !access.s3Allow(source).isEmpty();
    }

    /**
     * @param source a source {@link #canList} accepts
     * @return the documents under its entries now
     * @throws IOException when a page cannot be listed (the message names the entry and S3's answer)
     * @throws IllegalStateException past {@code maxDocuments}
     */
    @Override
    public long count(String source) throws IOException {
        long documents = 0;
        for (S3Prefix entry : widest(access.s3Allow(source))) {
            String token = null;
            do {
                ListObjectsV2Response page = page(entry, token);
                for (S3Object o : page.contents()) {
                    if (S3Location.problem(o.key()) == null && ++documents > maxDocuments) {
                        throw new IllegalStateException("source '" + LogSafe.identity(source) + "' holds more than "
                                + maxDocuments + " objects under its s3-allow entries; raise the listing's bound"
                                + " (sources.count-max-documents) to list it, or state its total");
                    }
                }
                token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
            } while (token != null);
        }
        return documents;
    }

    private ListObjectsV2Response page(S3Prefix entry, String token) throws IOException {
        try {
            throttle.acquire(URI.create("s3://" + entry.bucket() + "/"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a request token to list " + entry);
        }
        try {
            return client.listObjectsV2(b -> b.bucket(entry.bucket()).prefix(entry.prefix()).continuationToken(token)
                    .maxKeys(pageKeys));
        } catch (S3Exception e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            throw new IOException("listing s3://" + LogSafe.identity(entry.toString()) + " failed (HTTP " + e.statusCode()
                    + (code == null ? "" : " " + code) + ")" + (e.statusCode() == 403
                    ? "; grant this process's credentials s3:ListBucket on the bucket" : ""), e);
        } catch (SdkException | IllegalStateException e) {
            throw new IOException("listing s3://" + LogSafe.identity(entry.toString()) + " failed ("
                    + LogSafe.identity(String.valueOf(e.getMessage())) + "); check " + S3Clients.ENDPOINT, e);
        }
    }

    /** @return the entries no other entry covers, each once */
    static List<S3Prefix> widest(List<S3Prefix> entries) {
        List<S3Prefix> kept = new ArrayList<>();
        for (S3Prefix e : entries) {
            boolean covered = entries.stream().anyMatch(o -> !o.equals(e) && o.covers(e));
            if (!covered && !kept.contains(e)) {
                kept.add(e);
            }
        }
        return kept;
    }
}
