package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The dependencies the manual tells users to add are the ones this build makes: a Maven {@code <dependency>}
 * or a Gradle {@code 'group:artifact:version'} of {@code io.github.redislock} names a module of the build at
 * its version, and any other names the version the root pom uses ({@code <artifact>.version}). A version bump
 * or a renamed module fails the build until the README and docs/ follow.
 */
class DocumentedDependenciesTest {

    private static final String OUR_GROUP = "io.github.redislock";
    private static final Pattern MAVEN = Pattern.compile(
            "<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*<version>([^<]+)</version>");
    private static final Pattern GRADLE = Pattern.compile("['\"]([\\w.-]+):([\\w.-]+):([\\w.-]+)['\"]");
    private static final Pattern PROJECT_VERSION = Pattern.compile("<artifactId>redis-lock-parent</artifactId>\\s*<version>([^<]+)</version>");
    private static final Set<String> GRADLE_BLOCKS = Set.of("groovy", "gradle", "kotlin", "kts");

    @Test
    void everyDocumentedDependencyIsAModuleOfThisBuildOrAVersionItUses() throws IOException {
        String rootPom = Files.readString(Manual.ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        Matcher projectVersion = PROJECT_VERSION.matcher(rootPom);
        assertThat(projectVersion.find()).as("the root pom's version").isTrue();

        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Manual.Page page : Manual.pages()) {
            for (Manual.Block block : page.blocks()) {
                Pattern dependency = block.language().equals("xml") ? MAVEN : GRADLE_BLOCKS.contains(block.language()) ? GRADLE : null;
                if (dependency == null) {
                    continue;
                }
                Matcher declared = dependency.matcher(String.join("\n", block.lines()));
                while (declared.find()) {
                    checked++;
                    String group = declared.group(1).strip();
                    String artifact = declared.group(2).strip();
                    String version = declared.group(3).strip();
                    String problem = group.equals(OUR_GROUP)
                            ? ourModuleProblem(artifact, version, projectVersion.group(1))
                            : rootPom.contains("<" + artifact + ".version>" + version + "</" + artifact + ".version>")
                                    ? null : "the root pom has no <" + artifact + ".version>" + version + "</" + artifact + ".version>";
                    if (problem != null) {
                        wrong.add(block.where() + ": " + group + ":" + artifact + ":" + version + ": " + problem);
                    }
                }
            }
        }
        assertThat(checked).as("dependencies the manual declares").isGreaterThanOrEqualTo(3);
        assertThat(wrong).as("documented dependencies this build does not make or use").isEmpty();
    }

    private static String ourModuleProblem(String artifact, String version, String projectVersion) throws IOException {
        Path pom = Manual.ROOT.resolve(artifact).resolve("pom.xml");
        if (!Files.isRegularFile(pom) || !Files.readString(pom, StandardCharsets.UTF_8).contains("<artifactId>" + artifact + "</artifactId>")) {
            return "no module of that name";
        }
        return version.equals(projectVersion) ? null : "the build's version is " + projectVersion;
    }
}
