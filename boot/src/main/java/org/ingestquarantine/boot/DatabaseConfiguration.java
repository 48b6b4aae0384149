package org.ingestquarantine.boot;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.app.DataDirLock;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.jdbc.JdbcConnectionDetails;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The database the Boot way: Spring Boot's DataSource (HikariCP, {@code spring.datasource.*}) migrated by Boot's
 * Flyway ({@code spring.flyway.*}; our migrations are at its default location, {@code classpath:db/migration}),
 * handed to the wiring as the {@value AppConfiguration#HOSTED_DATABASE} bean. Our keys are aliases below Boot's
 * ({@code ingest-quarantine-boot.properties}): {@code db.url}, {@code db.user}, {@code db.password} give
 * {@code spring.datasource.url}, {@code username}, {@code password} when those are not set, and the pool gets
 * {@link Database#configurePool}'s bounds ({@code db.connect-timeout-ms}) unless a
 * {@code spring.datasource.hikari.*} key says otherwise. With {@code db.mode=embedded} (the profiles' default) and
 * no {@code spring.datasource.url} (nor {@code db.url}), the embedded PostgreSQL of {@code <iq.data-dir>/postgres}
 * is started first and is the DataSource's connection ({@link JdbcConnectionDetails}, as Boot's service
 * connections are).
 */
@Configuration(proxyBeanMethods = false)
public class DatabaseConfiguration {

    /**
     * @param environment for {@code iq.data-dir}
     * @return the data folder's lock, held until the context is closed (after Camel and the database stopped)
     */
    @Bean(destroyMethod = "close")
    DataDirLock dataDirLock(Environment environment) {
        return DataDirLock.acquire(dataDir(environment));
    }

    /**
     * @return the embedded PostgreSQL in the data folder, on {@code db.port} (0: any free port), stopped when the
     *     context closes, after everything that uses the DataSource
     */
    @Bean(name = AppConfiguration.HOSTED_POSTGRES, destroyMethod = "close")
    @Conditional(EmbeddedDatabase.class)
    EmbeddedPostgresService embeddedPostgres(DataDirLock lock, Environment environment) {
        return EmbeddedPostgresService.start(EmbeddedPostgresService.folderIn(dataDir(environment)),
                environment.getProperty("db.port", Integer.class, 0), false);
    }

    /** @return the embedded PostgreSQL as the connection of Boot's DataSource (and so of its Flyway) */
    @Bean
    @Conditional(EmbeddedDatabase.class)
    JdbcConnectionDetails embeddedPostgresConnection(EmbeddedPostgresService postgres) {
        return new JdbcConnectionDetails() {
            @Override
            public String getUsername() {
                return postgres.user();
            }

            @Override
            public String getPassword() {
                return postgres.password();
            }

            @Override
            public String getJdbcUrl() {
                return postgres.jdbcUrl();
            }
        };
    }

    /**
     * Gives Boot's pool our bounds, then its own {@code spring.datasource.hikari.*} keys over them, and the
     * eviction of every connection on a connection loss, before anything (Flyway) borrows a connection.
     *
     * @param environment Boot's environment
     * @return the post-processor of the {@code dataSource} bean
     */
    @Bean
    static BeanPostProcessor poolBounds(ConfigurableEnvironment environment) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                if (bean instanceof HikariDataSource pool && "dataSource".equals(name)) {
                    Database.configurePool(pool, Duration.ofMillis(environment.getRequiredProperty(
                            Database.CONNECT_TIMEOUT_PROPERTY, Long.class)));
                    Binder.get(environment).bind("spring.datasource.hikari", Bindable.ofInstance(pool));
                    Database.over(pool);
                }
                return bean;
            }
        };
    }

    /**
     * @param dataSource Boot's DataSource, migrated by Boot's Flyway
     * @return the wiring's database over it; Boot closes the pool
     */
    @Bean(AppConfiguration.HOSTED_DATABASE)
    Database database(DataSource dataSource) throws java.sql.SQLException {
        return Database.over(dataSource instanceof HikariDataSource pool ? pool : dataSource.unwrap(HikariDataSource.class));
    }

    private static Path dataDir(Environment environment) {
        return Path.of(environment.getProperty("iq.data-dir", "data"));
    }

    /** {@code db.mode=embedded} (or unset) and no {@code spring.datasource.url} (nor its alias {@code db.url}). */
    static final class EmbeddedDatabase implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment env = context.getEnvironment();
            return "embedded".equals(env.getProperty("db.mode", "embedded"))
                    && env.getProperty("spring.datasource.url", "").isBlank();
        }
    }
}
