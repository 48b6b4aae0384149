package org.ingestquarantine.ingest;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.pipeline.LogSafe;

/**
 * An object named by an {@code s3://bucket/key} URI. The key is the URI's path without its leading slash,
 * percent-decoded exactly once ({@code %2F} becomes part of the key, {@code %252F} stays {@code %2F}): that is
 * the key compared with {@code sources.<name>.s3-allow} and the key asked for.
 *
 * <p>Refused with reason {@code invalid_uri}, before any request: a URI with user information, a port, a query or
 * a fragment; a bucket that is not 1 to 255 of {@code [A-Za-z0-9._-]}; an empty key, or one ending in {@code /}
 * (a "folder", not a document); a key over 1024 UTF-8 bytes (S3's limit); a key with a {@code .} or {@code ..}
 * segment, which an HTTP layer or a server may resolve, so that what was checked against the prefixes would
 * not be what is read; a key with control characters (they would reach logs and records).
 *
 * @param bucket the bucket
 * @param key the decoded key
 */
public record S3Location(String bucket, String key) {

    /** S3's longest key, UTF-8 bytes. */
    static final int MAX_KEY_BYTES = 1024;
    private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");
    private static final Pattern CONTROL = Pattern.compile("\\p{Cc}");

    /**
     * @param uri an {@code s3:} URI
     * @return its bucket and decoded key
     * @throws PermanentInputException with reason {@code invalid_uri} as the class says
     */
    public static S3Location of(URI uri) {
        if (!"s3".equalsIgnoreCase(uri.getScheme()) || uri.isOpaque()) {
            throw invalid(uri, "is not an s3://bucket/key URI");
        }
        if (uri.getRawUserInfo() != null || uri.getPort() != -1 || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw invalid(uri, "carries user information, a port, a query or a fragment");
        }
        String bucket = uri.getRawAuthority();
        if (bucket == null || !BUCKET.matcher(bucket).matches()) {
            throw invalid(uri, "names no valid bucket");
        }
        String path = uri.getPath(); // decoded once by java.net.URI
        String key = path == null || path.isEmpty() ? "" : path.substring(1);
        return new S3Location(bucket, checkKey(uri, key));
    }

    private static String checkKey(URI uri, String key) {
        String problem = problem(key);
        if (problem != null) {
            throw invalid(uri, problem);
        }
        return key;
    }

    /**
     * @param key a decoded key
     * @return why the connector refuses it, or {@code null} when it names a document it reads
     */
    static String problem(String key) {
        if (key.isEmpty() || key.endsWith("/")) {
            return "names no object (an empty key, or one ending in /)";
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            return "has a key over " + MAX_KEY_BYTES + " bytes";
        }
        if (CONTROL.matcher(key).find()) {
            return "has control characters in its key";
        }
        for (String segment : key.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return "has a '.' or '..' segment in its key";
            }
        }
        return null;
    }

    /** @return {@code s3://bucket/key} for messages, the key as it is (escape it with {@link LogSafe}) */
    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }

    private static PermanentInputException invalid(URI uri, String why) {
        return new PermanentInputException("invalid_uri", "the uri " + LogSafe.identity(uri.toString()) + " " + why);
    }
}
