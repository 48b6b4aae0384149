package org.ingestquarantine.quarantine;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import org.ingestquarantine.objectstore.S3ClientSettings;
import org.ingestquarantine.pipeline.Settings;

/**
 * The payload stores of this process, as one {@link PayloadStore}: new objects go to the store {@value #STORE}
 * names ({@code local} or {@code s3}); an object named by a record is read, checked and deleted where its URI says it
 * lives, whichever process wrote it: an {@code s3://} URI in the configured bucket and prefix
 * ({@link S3PayloadStore}), a {@code file:} URI under {@value #LOCAL_DIR} ({@link LocalPayloadStore}; default
 * {@code <data-dir>/objects}, or a shared mount). The local store is always there, for records written before a
 * switch to S3. A URI of a store this process is not configured for is refused with a
 * {@link PayloadNotHereException} naming the store and the setting that would reach it. Thread-safe.
 */
public final class PayloadStores implements PayloadStore, AutoCloseable {

    /** Where new objects go: {@code local} or {@code s3}. */
    public static final String STORE = "payload.store";
    /** The local store's folder; empty: {@code <data-dir>/objects}. */
    public static final String LOCAL_DIR = "payload.local.dir";

    private final LocalPayloadStore local;
    private final S3PayloadStore s3;
    private final PayloadStore writes;
    private boolean sharedLocal;

    /**
     * @param local the local folder store
     * @param s3 the S3 store, or null when {@value #STORE} is {@code local}
     */
    public PayloadStores(LocalPayloadStore local, S3PayloadStore s3) {
        this.local = local;
        this.s3 = s3;
        this.writes = s3 != null ? s3 : local;
    }

    /**
     * Builds the stores the settings name. Nothing is asked of S3 here; {@link #checkAtStart()} does.
     *
     * @param settings {@value #STORE}, {@value #LOCAL_DIR}, {@value S3PayloadStore#BUCKET},
     *     {@value S3PayloadStore#PREFIX} and the client's {@code s3.*} ({@link S3ClientSettings})
     * @param dataDir the data folder, for the default local folder
     * @return the stores; close them
     * @throws IllegalStateException one line naming the setting when one is missing or not understood
     */
    public static PayloadStores fromSettings(Settings settings, Path dataDir) {
        LocalPayloadStore local = new LocalPayloadStore(settings.find(LOCAL_DIR).map(Path::of)
                .orElse(dataDir.resolve("objects")));
        String kind = settings.string(STORE, "local");
        return switch (kind) {
            case "local" -> settings.find(LOCAL_DIR).isPresent() ? new PayloadStores(local, null).namedLocalDir()
                    : new PayloadStores(local, null);
            case "s3" -> new PayloadStores(local, new S3PayloadStore(S3ClientSettings.from(settings::find),
                    settings.find(S3PayloadStore.BUCKET).orElseThrow(() -> new IllegalStateException(STORE
                            + "=s3 needs " + S3PayloadStore.BUCKET + ": set it to the bucket that holds the payloads")),
                    settings.string(S3PayloadStore.PREFIX, "")));
            default -> throw new IllegalStateException(STORE + " must be local or s3, was '" + kind + "'");
        };
    }

    /**
     * Checks at start-up what can be checked: with S3, that the bucket exists and the credentials are accepted.
     *
     * @throws IllegalStateException one line naming the setting
     */
    public void checkAtStart() {
        if (s3 != null) {
            s3.checkBucket();
        }
    }

    /**
     * Claims the store new objects go to for this database (see {@link S3PayloadStore#claim},
     * {@link LocalPayloadStore#claim}), so that two databases never share one.
     *
     * @param installation the database's id
     * @throws IllegalStateException one line naming the setting when another database holds it
     * @throws java.io.IOException when a local claim cannot be read or written
     */
    public void claim(String installation) throws java.io.IOException {
        if (s3 != null) {
            s3.claim(installation);
        } else if (sharedLocal) {
            local.claim(installation);
        }
        // the default folder, <data-dir>/objects, is the data folder's own, as its embedded database is
    }

    /** @return these stores, whose local folder was named by {@value #LOCAL_DIR} (a folder others may mount too) */
    private PayloadStores namedLocalDir() {
        sharedLocal = true;
        return this;
    }

    /** @return {@code local} or {@code s3}: where new objects go */
    public String kind() {
        return s3 != null ? "s3" : "local";
    }

    @Override
    public StoredObject put(byte[] bytes) throws IOException {
        return writes.put(bytes);
    }

    @Override
    public StoredObject put(Path file) throws IOException {
        return writes.put(file);
    }

    @Override
    public InputStream open(String uri) throws IOException {
        return storeOf(uri).open(uri);
    }

    @Override
    public boolean exists(String uri) {
        return storeOf(uri).exists(uri);
    }

    @Override
    public boolean delete(String uri) throws IOException {
        return storeOf(uri).delete(uri);
    }

    @Override
    public boolean reachable() {
        return writes.reachable();
    }

    /**
     * @param uri an object URI from a record
     * @return the store holding it
     * @throws PayloadNotHereException if it lives in a store this process is not configured for
     * @throws IllegalArgumentException if it is not an object URI at all
     */
    private PayloadStore storeOf(String uri) {
        URI parsed;
        try {
            parsed = URI.create(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a payload URI: " + uri, e);
        }
        if ("s3".equals(parsed.getScheme())) {
            if (s3 != null && s3.owns(uri)) {
                return s3;
            }
            throw new PayloadNotHereException(notHereInS3(uri, parsed.getHost()));
        }
        if ("file".equals(parsed.getScheme())) {
            Path path = Path.of(parsed).toAbsolutePath().normalize();
            if (path.startsWith(local.root())) {
                return local;
            }
            Path folder = path.getParent() == null || path.getParent().getParent() == null ? path
                    : path.getParent().getParent();
            throw new PayloadNotHereException("payload " + uri + " is in the local folder " + folder
                    + ", not under this process's " + LOCAL_DIR + " (" + local.root() + "): run where that folder is,"
                    + " or set " + LOCAL_DIR + "=" + folder + " (a folder every process mounts)");
        }
        throw new IllegalArgumentException("not a payload URI: " + uri);
    }

    private String notHereInS3(String uri, String bucket) {
        String in = "payload " + uri + " is in S3 bucket " + bucket;
        if (s3 == null) {
            return in + "; this process has " + STORE + "=local: set " + STORE + "=s3 and " + S3PayloadStore.BUCKET
                    + "=" + bucket;
        }
        if (!s3.bucket().equals(bucket)) {
            return in + "; this process has " + S3PayloadStore.BUCKET + "=" + s3.bucket() + ": set "
                    + S3PayloadStore.BUCKET + "=" + bucket;
        }
        String key = uri.substring(("s3://" + bucket + "/").length());
        String prefix = key.length() >= 67 ? key.substring(0, key.length() - 67) : "";
        return in + " under prefix '" + prefix + "'; this process has " + S3PayloadStore.PREFIX + "='" + s3.prefix()
                + "': set " + S3PayloadStore.PREFIX + "=" + prefix;
    }

    /** @return the S3 store, if this process has one */
    public Optional<S3PayloadStore> s3() {
        return Optional.ofNullable(s3);
    }

    @Override
    public void close() {
        if (s3 != null) {
            s3.close();
        }
    }
}
