package org.ingestquarantine.objectstore;

import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Names what an S3 call's failure means for the user, in one line that names the setting to look at. Never
 * includes credentials (S3's error codes and HTTP statuses only, not the response body).
 */
public final class S3Failures {

    /** S3's error codes for credentials it does not accept (HTTP 403). */
    private static final Set<String> REFUSED_CREDENTIALS = Set.of("InvalidAccessKeyId", "SignatureDoesNotMatch",
            "InvalidToken", "ExpiredToken", "InvalidSecurity", "TokenRefreshRequired");

    private S3Failures() {
    }

    /** What went wrong, in the terms a user acts on. */
    public enum Kind {
        /** no answer: connection refused, timeout, name not resolved */
        UNREACHABLE,
        /** the bucket does not exist */
        NO_SUCH_BUCKET,
        /** the object does not exist */
        NO_SUCH_OBJECT,
        /** the credentials were refused, or none were found */
        CREDENTIALS,
        /** the credentials are valid but not allowed this */
        ACCESS_DENIED,
        /** S3 answered with another error (throttling, 5xx, ...) */
        OTHER
    }

    /**
     * @param e a failed call
     * @return what it means
     */
    public static Kind kind(SdkException e) {
        if (e instanceof AwsServiceException s) {
            String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
            if ("NoSuchBucket".equals(code)) {
                return Kind.NO_SUCH_BUCKET;
            }
            if ("NoSuchKey".equals(code) || "NotFound".equals(code) || s.statusCode() == 404) {
                return Kind.NO_SUCH_OBJECT;
            }
            if (code != null && REFUSED_CREDENTIALS.contains(code)) {
                return Kind.CREDENTIALS;
            }
            if (s.statusCode() == 403) {
                // a HEAD's answer has no body: without a code, refused credentials and a denial look the same
                return code == null || code.equals("403 Forbidden") ? Kind.CREDENTIALS : Kind.ACCESS_DENIED;
            }
            return Kind.OTHER;
        }
        if (e instanceof SdkClientException && e.getMessage() != null
                && e.getMessage().startsWith("Unable to load credentials")) {
            return Kind.CREDENTIALS;
        }
        return Kind.UNREACHABLE;
    }

    /**
     * @param e a failed call on {@code bucket}
     * @param settings the client's settings (for the endpoint)
     * @param bucket the bucket used
     * @param bucketSetting the setting that names the bucket, e.g. {@code payload.s3.bucket}
     * @return one line: what failed and the setting to check
     */
    public static String describe(SdkException e, S3ClientSettings settings, String bucket, String bucketSetting) {
        String at = " at " + settings.describeEndpoint();
        return switch (kind(e)) {
            case UNREACHABLE -> "S3" + at + " is unreachable (" + rootCause(e) + "); check "
                    + S3ClientSettings.ENDPOINT + " and that the server runs";
            case NO_SUCH_BUCKET -> "bucket '" + bucket + "' does not exist" + at + "; create it or set "
                    + bucketSetting;
            case NO_SUCH_OBJECT -> "no such object in bucket '" + bucket + "'" + at;
            case CREDENTIALS -> "S3" + at + " refused the credentials for bucket '" + bucket + "' (" + code(e)
                    + "); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or -Daws.accessKeyId and"
                    + " -Daws.secretAccessKey, or a profile) to keys allowed to use it";
            case ACCESS_DENIED -> "S3" + at + " denied access to bucket '" + bucket + "' (" + code(e)
                    + "); allow these credentials to use it, or set " + bucketSetting;
            case OTHER -> "S3" + at + " answered " + code(e) + " for bucket '" + bucket + "'";
        };
    }

    private static String code(SdkException e) {
        if (e instanceof AwsServiceException s) {
            String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
            return "HTTP " + s.statusCode() + (code == null ? "" : " " + code);
        }
        return "no credentials found";
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName();
    }
}
