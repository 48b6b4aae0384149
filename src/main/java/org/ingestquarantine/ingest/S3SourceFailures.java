package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.NoSuchFileException;
import java.util.Set;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.LogSafe;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What an S3 answer means for the document (the rules {@link S3Connector} documents): missing object → gone,
 * access denied → permanent_input, our own credentials or region refused, throttling, server errors and
 * transport failures → transient. Messages name the object, the S3 error code and the setting to look at; never
 * a credential.
 */
final class S3SourceFailures {

    /** Error codes that refuse this process's credentials or signature, not the object. */
    private static final Set<String> CREDENTIALS = Set.of("InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken",
            "InvalidToken", "TokenRefreshRequired", "InvalidSecurity", "MissingSecurityHeader");
    /** Error codes saying the bucket lives in another region than {@code s3.region}. */
    private static final Set<String> REGION = Set.of("PermanentRedirect", "AuthorizationHeaderMalformed",
            "IllegalLocationConstraintException");

    private S3SourceFailures() {
    }

    /**
     * @param location the object asked for
     * @param e S3's answer
     * @return a {@link NoSuchFileException} for a missing object (or version), else a
     *     {@link PermanentInputException} or {@link TransientException}
     */
    static Exception of(S3Location location, S3Exception e) {
        int status = e.statusCode();
        String code = code(e);
        String object = LogSafe.identity(location.toString());
        String answered = " (HTTP " + status + (code.isEmpty() ? "" : " " + code) + ")";
        if ("NoSuchBucket".equals(code)) {
            return new PermanentInputException("s3_no_such_bucket", "the bucket " + LogSafe.identity(location.bucket())
                    + " does not exist at this S3 endpoint" + answered + "; check the URI's bucket and "
                    + S3Clients.ENDPOINT);
        }
        if (status == 404) {
            return new NoSuchFileException(object, null, "S3 answered" + answered);
        }
        if (CREDENTIALS.contains(code)) {
            return new TransientException("s3_credentials_refused", "S3 refused this process's credentials" + answered
                    + " reading " + object + "; check the SDK's default credential chain (AWS_ACCESS_KEY_ID,"
                    + " AWS_PROFILE, aws.accessKeyId); retrying later", e);
        }
        if (REGION.contains(code)) {
            return new TransientException("s3_wrong_region", "the bucket " + LogSafe.identity(location.bucket())
                    + " is not in the region asked" + answered + "; set " + S3Clients.REGION + "; retrying later", e);
        }
        if (status == 403) {
            return new PermanentInputException("s3_access_denied", "S3 denied reading " + object + answered
                    + "; grant this process's credentials s3:GetObject on it (and s3:ListBucket, without which S3"
                    + " answers 403 for a deleted object)");
        }
        if ("SlowDown".equals(code) || status == 503) {
            return new TransientException("s3_slow_down", "S3 asked to slow down reading " + object + answered
                    + "; retrying later (source-requests.max-per-s caps the request rate)", e);
        }
        if (status >= 500 || status == 408 || status == 429) {
            return new TransientException("s3_" + status, "S3 failed reading " + object + answered
                    + "; retrying later", e);
        }
        return new PermanentInputException("s3_" + status, "S3 refused reading " + object + answered);
    }

    /**
     * @param location the object asked for
     * @param e a failure before S3 answered, or while its body was read
     * @param fallback the reason when the failure says nothing more specific
     * @return a transient failure naming what went wrong on the wire
     */
    static TransientException transport(S3Location location, Throwable e, String fallback) {
        String reason = fallback;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException || t instanceof ApiCallTimeoutException
                    || t instanceof ApiCallAttemptTimeoutException || t.getClass().getSimpleName().endsWith("TimeoutException")) {
                reason = "timeout";
                break;
            }
            if (t instanceof ConnectException) {
                reason = "connection_refused";
                break;
            }
            if (t instanceof UnknownHostException) {
                reason = "unknown_host";
                break;
            }
            if (t instanceof InterruptedIOException || t instanceof InterruptedException) {
                reason = "interrupted";
                break;
            }
            if (t instanceof SocketException && String.valueOf(t.getMessage()).toLowerCase().contains("reset")) {
                reason = "connection_reset";
                break;
            }
            if (String.valueOf(t.getMessage()).startsWith("Unable to load credentials")) {
                reason = "s3_no_credentials";
                break;
            }
        }
        String hint = switch (reason) {
            case "connection_refused", "unknown_host" -> "; check " + S3Clients.ENDPOINT;
            case "s3_no_credentials" -> "; give this process credentials through the SDK's default chain"
                    + " (AWS_ACCESS_KEY_ID, AWS_PROFILE, aws.accessKeyId)";
            case "timeout" -> "; http.connect-timeout-ms, http.idle-timeout-ms and http.body-deadline-ms bound it";
            default -> "";
        };
        return new TransientException(reason, "reading " + LogSafe.identity(location.toString()) + " from S3 failed ("
                + reason + ": " + LogSafe.identity(String.valueOf(e.getMessage())) + ")" + hint + "; retrying later", e);
    }

    private static String code(S3Exception e) {
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        return code == null ? "" : code;
    }

    /** @return {@code e} as the IOException it is, or thrown when it is unchecked */
    static IOException rethrow(Exception e) {
        if (e instanceof RuntimeException r) {
            throw r;
        }
        return (IOException) e;
    }
}
