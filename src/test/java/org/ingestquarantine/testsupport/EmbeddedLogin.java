package org.ingestquarantine.testsupport;

import java.nio.file.Path;
import org.ingestquarantine.db.EmbeddedCredentials;
import org.ingestquarantine.db.EmbeddedPostgresService;

/** The application role's password of a data folder's embedded PostgreSQL, for a test that connects beside a child. */
public final class EmbeddedLogin {

    private EmbeddedLogin() {
    }

    /**
     * @param dataDir an application data folder ({@code --data-dir})
     * @return the password of {@link EmbeddedPostgresService#USER} saved in it; empty before its first start
     */
    public static String appPassword(Path dataDir) {
        return EmbeddedCredentials.read(EmbeddedPostgresService.folderIn(dataDir).resolve(EmbeddedCredentials.FILE))
                .map(EmbeddedCredentials::appPassword).orElse("");
    }
}
