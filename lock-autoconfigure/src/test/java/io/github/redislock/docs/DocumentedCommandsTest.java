package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Every shell command of README.md and docs/ is run by CI, or says it is an example: a command the
 * build does not run is one nobody notices breaking.
 *
 * <p>A {@code ```sh} block passes when each of its commands is a line of {@code .ci/run} (ignoring
 * {@code -B} and spacing), or when a marker comment before its fence says why it is not run:
 * {@code <!-- example: starts the sample and waits for requests -->}. The reason is required.
 *
 * <p>An example still names only what exists: the modules of {@code -pl}, the profiles of {@code -P},
 * the jar a {@code java -jar} runs (its module), and the benchmark options it passes (either Boot line's jar),
 * with the implementations and scenarios they name.
 */
class DocumentedCommandsTest {

    private static final Set<String> SHELLS = Set.of("sh", "bash", "shell", "console");
    /** Either Boot line's benchmark jar: both take the same options. */
    private static final Pattern BENCHMARK_JAR = Pattern.compile("lock-benchmarks[\\w-]*\\.jar");
    /** The benchmark options whose values are names the harness defines: implementations and scenarios. */
    private static final Set<String> NAMING_OPTIONS = Set.of("implementations", "scenarios");

    @Test
    void everyDocumentedCommandIsRunByCiOrMarkedAsAnExample() throws IOException {
        List<String> ciCommands = Files.readAllLines(Manual.ROOT.resolve(".ci/run"), StandardCharsets.UTF_8).stream()
                .map(DocumentedCommandsTest::normalized).filter(line -> !line.isEmpty()).toList();
        List<String> unrun = new ArrayList<>();
        int blocks = 0;
        for (Manual.Page page : Manual.pages()) {
            for (Manual.Block block : page.blocks()) {
                if (!SHELLS.contains(block.language())) {
                    continue;
                }
                blocks++;
                String marker = block.marker();
                if (marker != null && marker.startsWith("example")) {
                    if (!marker.matches("example:\\s*\\S.*")) {
                        unrun.add(block.where() + ": the example marker gives no reason (<!-- example: why it is not run -->)");
                    }
                    continue;
                }
                for (String command : commands(block.lines())) {
                    if (!ciCommands.contains(normalized(command))) {
                        unrun.add(block.where() + ": " + command);
                    }
                }
            }
        }
        assertThat(blocks).as("shell blocks found").isGreaterThan(5);
        assertThat(unrun).as("commands neither run by .ci/run nor marked <!-- example: why --> before their block").isEmpty();
    }

    @Test
    void everyDocumentedCommandNamesModulesProfilesAndOptionsThatExist() throws IOException {
        String poms = String.join("\n", Files.readAllLines(Manual.ROOT.resolve("pom.xml"), StandardCharsets.UTF_8))
                + String.join("\n", Files.readAllLines(Manual.ROOT.resolve("sample-app/pom.xml"), StandardCharsets.UTF_8));
        List<String> benchmarkLiterals = DocumentedNamesTest.literalsOfTheSources().stream().toList();
        List<String> wrong = new ArrayList<>();
        for (Manual.Page page : Manual.pages()) {
            for (Manual.Block block : page.blocks()) {
                if (!SHELLS.contains(block.language())) {
                    continue;
                }
                for (String command : commands(block.lines())) {
                    List<String> words = List.of(command.split(" "));
                    for (int i = 0; i < words.size(); i++) {
                        String word = words.get(i);
                        if (word.equals("-pl") && i + 1 < words.size()) {
                            for (String module : words.get(i + 1).split(",")) {
                                if (!Files.isRegularFile(Manual.ROOT.resolve(module).resolve("pom.xml"))) {
                                    wrong.add(block.where() + ": no module " + module + " in: " + command);
                                }
                            }
                        } else if (word.startsWith("-P") && word.length() > 2 && !poms.contains("<id>" + word.substring(2) + "</id>")) {
                            wrong.add(block.where() + ": no profile " + word.substring(2) + " in: " + command);
                        } else if (word.equals("-jar") && i + 1 < words.size()) {
                            String jar = words.get(i + 1);
                            if (!Files.isRegularFile(Manual.ROOT.resolve(jar.substring(0, jar.indexOf('/'))).resolve("pom.xml"))) {
                                wrong.add(block.where() + ": no module builds " + jar);
                            }
                        } else if (word.startsWith("--") && BENCHMARK_JAR.matcher(command).find()) {
                            String[] option = word.substring(2).split("=", 2);
                            if (benchmarkLiterals.stream().noneMatch(literal -> literal.equals(option[0]) || literal.equals("--" + option[0]))) {
                                wrong.add(block.where() + ": the benchmarks have no option --" + option[0]);
                            } else if (option.length == 2 && NAMING_OPTIONS.contains(option[0])) {
                                for (String name : option[1].split(",")) {
                                    if (!benchmarkLiterals.contains(name)) {
                                        wrong.add(block.where() + ": the benchmarks have no " + option[0] + " named " + name);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assertThat(wrong).as("commands naming what does not exist").isEmpty();
    }

    @Test
    void aCommandIsItsContinuationLinesJoinedWithoutComments() {
        assertThat(commands(List.of("# build first", "./mvnw -pl a \\", "    -am verify   # both", "", "java -jar a/target/a.jar")))
                .containsExactly("./mvnw -pl a -am verify", "java -jar a/target/a.jar");
    }

    /** The block's commands: continuation lines joined, comments and blank lines dropped. */
    static List<String> commands(List<String> lines) {
        List<String> commands = new ArrayList<>();
        StringBuilder command = new StringBuilder();
        for (String line : lines) {
            String code = withoutComment(line).strip();
            boolean continued = code.endsWith("\\");
            command.append(continued ? code.substring(0, code.length() - 1) : code).append(' ');
            if (!continued) {
                if (!command.toString().isBlank()) {
                    commands.add(command.toString().strip().replaceAll("\\s+", " "));
                }
                command.setLength(0);
            }
        }
        return commands;
    }

    private static String withoutComment(String line) {
        String stripped = line.strip();
        if (stripped.startsWith("#")) {
            return "";
        }
        int comment = line.indexOf(" #");
        return comment < 0 ? line : line.substring(0, comment);
    }

    private static String normalized(String command) {
        return withoutComment(command).replace(" -B ", " ").replaceAll("\\s+", " ").strip();
    }
}
