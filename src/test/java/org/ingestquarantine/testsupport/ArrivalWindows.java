package org.ingestquarantine.testsupport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Requests counted where they arrive: the most in any one-second window. */
public final class ArrivalWindows {

    private ArrivalWindows() {
    }

    /**
     * @param nanos arrival times, {@link System#nanoTime()}, in any order
     * @return the most arrivals in any half-open window of one second
     */
    public static int maxInAnySecond(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int max = 0;
        for (int i = 0; i < sorted.size(); i++) {
            int n = 0;
            for (int j = i; j < sorted.size() && sorted.get(j) - sorted.get(i) < 1_000_000_000L; j++) {
                n++;
            }
            max = Math.max(max, n);
        }
        return max;
    }
}
