package org.ingestquarantine.ingest;

import java.util.regex.Pattern;

/**
 * One entry of {@code sources.<name>.s3-allow}: {@code bucket} (the whole bucket) or {@code bucket/prefix}. An
 * object is admitted when its bucket equals the entry's (case-sensitive, as S3's names are) and its decoded key
 * ({@link S3Location#key()}) starts with the prefix, compared as a string as S3 and IAM compare prefixes: end the
 * prefix with {@code /} to mean a folder ({@code docs/} admits {@code docs/a.pdf}, not {@code docs-old/a.pdf}).
 *
 * @param bucket the bucket
 * @param prefix the key prefix, {@code ""} for the whole bucket
 */
public record S3Prefix(String bucket, String prefix) {

    private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

    /**
     * @param key the property, for the message
     * @param value {@code bucket} or {@code bucket/prefix}; an {@code s3://} in front is accepted
     * @return the entry
     * @throws IllegalStateException when the bucket is not a bucket name, or the prefix has a {@code .} or
     *     {@code ..} segment (no key it could admit is ever read, see {@link S3Location})
     */
    public static S3Prefix parse(String key, String value) {
        String v = value.startsWith("s3://") ? value.substring("s3://".length()) : value;
        int slash = v.indexOf('/');
        String bucket = slash < 0 ? v : v.substring(0, slash);
        String prefix = slash < 0 ? "" : v.substring(slash + 1);
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalStateException(key + ": '" + value + "' is not bucket[/prefix] (bucket names are 1 to 255"
                    + " of a-z, A-Z, 0-9, '.', '-', '_')");
        }
        for (String segment : prefix.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new IllegalStateException(key + ": '" + value + "' has a '.' or '..' segment; name the prefix"
                        + " as the keys spell it");
            }
        }
        return new S3Prefix(bucket, prefix);
    }

    /**
     * @param location a checked object
     * @return whether this entry admits it
     */
    public boolean admits(S3Location location) {
        return bucket.equals(location.bucket()) && location.key().startsWith(prefix);
    }

    /**
     * @param other another entry
     * @return whether every key {@code other} admits is admitted by this entry too
     */
    public boolean covers(S3Prefix other) {
        return bucket.equals(other.bucket) && other.prefix.startsWith(prefix);
    }

    @Override
    public String toString() {
        return prefix.isEmpty() ? bucket : bucket + "/" + prefix;
    }
}
