package org.ingestquarantine.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.KeyGenerator;
import javax.crypto.Mac;
import javax.crypto.SecretKey;

/**
 * The confirmation a preview issues and its action must bring back: {@code <records>.<mac>}, the count of the
 * selection's open records when previewed and an HMAC-SHA256, under a key this process drew at random, of the
 * action, the exact selection and that count. A caller cannot make one without asking for the preview, nor use one
 * for another action or selection; a restart draws a new key, so a preview from before it is asked again.
 * Thread-safe.
 */
final class Confirmations {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKey key;

    Confirmations() {
        try {
            key = KeyGenerator.getInstance(ALGORITHM).generateKey();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM offers no " + ALGORITHM, e);
        }
    }

    /**
     * @param action what the confirmation is for
     * @param selection exactly which records
     * @param records the selection's open records now
     * @return the confirmation
     */
    String issue(BulkAction action, CohortSelection selection, long records) {
        return records + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(action, selection, records));
    }

    /**
     * @param confirmation what the caller brought back
     * @param action the action asked for
     * @param selection its selection
     * @return the count the preview saw
     * @throws ActionRefusedException if the confirmation was not issued for this action and selection (by this
     *     process)
     */
    long verify(String confirmation, BulkAction action, CohortSelection selection) {
        int dot = confirmation.indexOf('.');
        try {
            long records = Long.parseLong(confirmation.substring(0, Math.max(dot, 0)));
            byte[] given = Base64.getUrlDecoder().decode(confirmation.substring(dot + 1));
            if (records >= 0 && MessageDigest.isEqual(given, mac(action, selection, records))) {
                return records;
            }
        } catch (IllegalArgumentException e) {
            // not a number, not base64: not a confirmation of this selection either
        }
        throw new ActionRefusedException("the confirmation does not match this " + action.code() + " of this"
                + " selection (another selection's, or from before a restart); nothing was changed: preview it again");
    }

    private byte[] mac(BulkAction action, CohortSelection s, long records) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(JSON.writeValueAsString(Arrays.asList(action.code(), s.fingerprint(), s.parserVersion(),
                    s.errorClass(), s.source(), s.limit(), records)).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException | JsonProcessingException e) {
            throw new IllegalStateException("a confirmation could not be computed", e);
        }
    }
}
