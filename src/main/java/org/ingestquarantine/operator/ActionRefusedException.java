package org.ingestquarantine.operator;

/**
 * A well-formed bulk action refused as things stand (HTTP 409): its confirmation does not match its selection, the
 * selection's count changed since the preview that issued the confirmation, or a canary drain from the API is
 * already running. Nothing was changed but the action's trail entry ({@code refused}). The message is one line
 * saying what to do (preview again, wait).
 */
public final class ActionRefusedException extends RuntimeException {

    /** @param message why, and what to do; no document text */
    public ActionRefusedException(String message) {
        super(message);
    }

    /** @return the refusal of a confirmed action whose selection holds {@code now} open records, not {@code previewed} */
    static ActionRefusedException countChanged(long now, long previewed) {
        return new ActionRefusedException("the selection holds " + now + " open records now, not the " + previewed
                + " previewed (records arrived or were closed since); nothing was changed: preview it again");
    }
}
