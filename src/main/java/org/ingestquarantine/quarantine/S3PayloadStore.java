package org.ingestquarantine.quarantine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.DigestUtils;
import org.ingestquarantine.objectstore.S3ClientSettings;
import org.ingestquarantine.objectstore.S3Failures;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;

/**
 * A {@link PayloadStore} in an S3 bucket (AWS or an S3-compatible server): an object with SHA-256 {@code h} has
 * the key {@code <prefix><h[0..2]>/<h>} and the URI {@code s3://<bucket>/<key>}. Bucket and prefix come from
 * {@value #BUCKET} and {@value #PREFIX}, the client from {@link S3ClientSettings}.
 *
 * <p>Every upload sends the object's SHA-256 ({@code x-amz-checksum-sha256}), so S3 refuses bytes that changed on
 * the way; an object that exists already (HEAD) is not uploaded again. Every read hashes the bytes and fails at the
 * end of the stream ({@link PayloadCorruptException}) when they are not the bytes the key names. Deleting removes
 * every version of the key (a plain DELETE in a versioned bucket would only hide the bytes behind a delete marker).
 * A failure to reach S3 is an {@link IOException} whose message names the setting to check. Thread-safe.
 */
public final class S3PayloadStore implements PayloadStore, AutoCloseable {

    /** The bucket. */
    public static final String BUCKET = "payload.s3.bucket";
    /** The claim object's name under the prefix (no object key of a payload looks like it: theirs are {@code xx/<sha256>}). */
    public static final String CLAIM = "iq-installation";
    /** A key prefix inside the bucket, e.g. {@code quarantine/}; empty for none. */
    public static final String PREFIX = "payload.s3.prefix";

    private static final Pattern OBJECT = Pattern.compile("([0-9a-f]{2})/([0-9a-f]{64})");

    private final S3Client client;
    private final S3ClientSettings settings;
    private final String bucket;
    private final String prefix;

    /**
     * @param settings how to reach S3
     * @param bucket the bucket, which must exist ({@link #checkBucket()})
     * @param prefix key prefix; slashes around it are normalised ({@code a/b} and {@code /a/b/} are {@code a/b/})
     */
    public S3PayloadStore(S3ClientSettings settings, String bucket, String prefix) {
        this.settings = settings;
        this.bucket = bucket;
        String p = prefix == null ? "" : prefix.replaceAll("^/+|/+$", "");
        this.prefix = p.isEmpty() ? "" : p + "/";
        this.client = settings.newClient();
    }

    /** @return the bucket */
    public String bucket() {
        return bucket;
    }

    /** @return the normalised prefix: empty, or ending in {@code /} */
    public String prefix() {
        return prefix;
    }

    /**
     * Asks S3 for the bucket (HEAD), at start-up: a process that could not store evidence must not consume.
     *
     * @throws IllegalStateException one line naming the setting: bucket missing, credentials refused, S3 unreachable
     */
    public void checkBucket() {
        try {
            client.headBucket(b -> b.bucket(bucket));
        } catch (SdkException e) {
            // HEAD has no body: a 404 is the bucket missing, whatever the code
            String line = e instanceof software.amazon.awssdk.awscore.exception.AwsServiceException s
                    && s.statusCode() == 404 ? "bucket '" + bucket + "' does not exist at "
                    + settings.describeEndpoint() + "; create it or set " + BUCKET : describe(e);
            throw new IllegalStateException("payload store: " + line);
        }
    }

    /**
     * Claims this bucket and prefix for one database: the object {@value #CLAIM} under the prefix holds the id of the
     * installation whose records name the objects; written if absent, compared if present.
     *
     * @param installation the database's id ({@code installation} table)
     * @throws IllegalStateException one line naming {@value #PREFIX} when another database holds the claim
     */
    public void claim(String installation) {
        String key = prefix + CLAIM;
        try {
            String holder;
            try {
                holder = client.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asUtf8String().trim();
            } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
                client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(installation + "\n"));
                return;
            }
            if (!holder.equals(installation)) {
                throw new IllegalStateException("payload store: s3://" + bucket + "/" + prefix + " holds the payloads of"
                        + " another database (installation " + holder + "; this one is " + installation + "): objects are"
                        + " named by their content, so an erase or expiry here would delete bytes that database's records"
                        + " still name; give each database its own " + PREFIX + " (or " + BUCKET + ")");
            }
        } catch (SdkException e) {
            throw new IllegalStateException("payload store: " + describe(e));
        }
    }

    @Override
    public boolean reachable() {
        try {
            client.headBucket(b -> b.bucket(bucket));
            return true;
        } catch (SdkException e) {
            return false;
        }
    }

    @Override
    public StoredObject put(byte[] bytes) throws IOException {
        String hash = DigestUtils.sha256Hex(bytes);
        return upload(hash, bytes.length, RequestBody.fromBytes(bytes));
    }

    @Override
    public StoredObject put(Path file) throws IOException {
        // the hash names the key and is the checksum S3 verifies, so it is known before the upload: one pass to hash,
        // one to send (a payload is never held in memory)
        MessageDigest digest = DigestUtils.getSha256Digest();
        long size;
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
            size = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return upload(HexFormat.of().formatHex(digest.digest()), size, RequestBody.fromFile(file));
    }

    private StoredObject upload(String hash, long size, RequestBody body) throws IOException {
        String key = keyOf(hash);
        StoredObject stored = new StoredObject("s3://" + bucket + "/" + key, hash, size);
        try {
            if (!headObject(key)) {
                String checksum = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(hash));
                client.putObject(b -> b.bucket(bucket).key(key).contentLength(size)
                        .checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(checksum), body);
            }
            return stored;
        } catch (SdkException e) {
            throw new IOException(describe(e), e);
        }
    }

    @Override
    public InputStream open(String uri) throws IOException {
        String key = resolve(uri);
        try {
            return new Sha256VerifyingInputStream(client.getObject(b -> b.bucket(bucket).key(key)), hashOf(key), uri);
        } catch (SdkException e) {
            if (S3Failures.kind(e) == S3Failures.Kind.NO_SUCH_OBJECT) {
                throw new NoSuchFileException(uri);
            }
            throw new IOException(describe(e), e);
        }
    }

    /**
     * @throws java.io.UncheckedIOException if S3 cannot be asked (unreachable, credentials refused)
     */
    @Override
    public boolean exists(String uri) {
        String key = resolve(uri);
        try {
            return headObject(key);
        } catch (SdkException e) {
            throw new java.io.UncheckedIOException(new IOException(describe(e), e));
        }
    }

    /** Deletes every version and delete marker of the object's key; in a bucket without versioning, the object. */
    @Override
    public boolean delete(String uri) throws IOException {
        String key = resolve(uri);
        try {
            boolean existed = headObject(key);
            List<ObjectIdentifier> versions = new ArrayList<>();
            client.listObjectVersionsPaginator(b -> b.bucket(bucket).prefix(key)).forEach(page -> {
                page.versions().stream().filter(v -> key.equals(v.key()))
                        .forEach(v -> versions.add(ObjectIdentifier.builder().key(key).versionId(v.versionId()).build()));
                page.deleteMarkers().stream().filter(m -> key.equals(m.key()))
                        .forEach(m -> versions.add(ObjectIdentifier.builder().key(key).versionId(m.versionId()).build()));
            });
            if (versions.isEmpty()) {
                client.deleteObject(b -> b.bucket(bucket).key(key));
            }
            for (ObjectIdentifier v : versions) {
                // one by one: DeleteObjects requires a Content-MD5 some servers check and others do not send
                if (v.versionId() == null || "null".equals(v.versionId())) {
                    client.deleteObject(b -> b.bucket(bucket).key(key));
                } else {
                    client.deleteObject(b -> b.bucket(bucket).key(key).versionId(v.versionId()));
                }
            }
            return existed || !versions.isEmpty();
        } catch (SdkException e) {
            throw new IOException(describe(e), e);
        }
    }

    private boolean headObject(String key) {
        try {
            client.headObject(b -> b.bucket(bucket).key(key));
            return true;
        } catch (SdkException e) {
            if (S3Failures.kind(e) == S3Failures.Kind.NO_SUCH_OBJECT) {
                return false;
            }
            throw e;
        }
    }

    /**
     * @param uri an object URI
     * @return whether it names an object of this store (its bucket, under its prefix)
     */
    public boolean owns(String uri) {
        try {
            resolve(uri);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** @return the key of an object URI of this store */
    private String resolve(String uri) {
        String start = "s3://" + bucket + "/" + prefix;
        Matcher m = uri == null || !uri.startsWith(start) ? null : OBJECT.matcher(uri.substring(start.length()));
        if (m == null || !m.matches() || !m.group(2).startsWith(m.group(1))) {
            throw new IllegalArgumentException("not a payload URI of bucket '" + bucket + "' under prefix '" + prefix
                    + "': " + uri);
        }
        return uri.substring(("s3://" + bucket + "/").length());
    }

    private String keyOf(String hash) {
        return prefix + hash.substring(0, 2) + "/" + hash;
    }

    private static String hashOf(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }

    private String describe(SdkException e) {
        return S3Failures.describe(e, settings, bucket, BUCKET);
    }

    @Override
    public void close() {
        client.close();
    }
}
