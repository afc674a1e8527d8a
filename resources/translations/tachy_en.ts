<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>CascadeController</name>
    <message numerus="yes">
        <source>Earlier turns summarised: %Ln message(s) are sent as a summary.</source>
        <translation>
            <numerusform>Earlier turns summarised: %Ln message is sent as a summary.</numerusform>
            <numerusform>Earlier turns summarised: %Ln messages are sent as a summary.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DoctorDialog</name>
    <message numerus="yes">
        <source>%Ln check(s) failed. Each says how to fix it.</source>
        <translation>
            <numerusform>%Ln check failed. Each says how to fix it.</numerusform>
            <numerusform>%Ln checks failed. Each says how to fix it.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ImportDialog</name>
    <message numerus="yes">
        <source>Import %n server(s)</source>
        <translation>
            <numerusform>Import %n server</numerusform>
            <numerusform>Import %n servers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>KnowledgeController</name>
    <message numerus="yes">
        <source>Removed {path}: %Ln file(s) left your knowledge base.</source>
        <translation>
            <numerusform>Removed {path}: %Ln file left your knowledge base.</numerusform>
            <numerusform>Removed {path}: %Ln files left your knowledge base.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Indexed %Ln file(s)</source>
        <translation>
            <numerusform>Indexed %Ln file</numerusform>
            <numerusform>Indexed %Ln files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln passage(s)</source>
        <translation>
            <numerusform>%Ln passage</numerusform>
            <numerusform>%Ln passages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln skipped (binary or unreadable).</source>
        <translation>
            <numerusform>%Ln skipped (binary or unreadable).</numerusform>
            <numerusform>%Ln skipped (binary or unreadable).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LivePlot</name>
    <message numerus="yes">
        <source>%Ln chunk(s)</source>
        <translation>
            <numerusform>%Ln chunk</numerusform>
            <numerusform>%Ln chunks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln stall(s)</source>
        <translation>
            <numerusform>%Ln stall</numerusform>
            <numerusform>%Ln stalls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RequestsView</name>
    <message numerus="yes">
        <source>Time in tools: {share}% of %Ln turn(s) with tools</source>
        <translation>
            <numerusform>Time in tools: {share}% of %Ln turn with tools</numerusform>
            <numerusform>Time in tools: {share}% of %Ln turns with tools</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>P99 needs at least %Ln tool runs</source>
        <translation>
            <numerusform>P99 needs at least %Ln tool run</numerusform>
            <numerusform>P99 needs at least %Ln tool runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>these figures are of %Ln tool run(s).</source>
        <translation>
            <numerusform>these figures are of %Ln tool run.</numerusform>
            <numerusform>these figures are of %Ln tool runs.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>P99 needs at least %Ln requests</source>
        <translation>
            <numerusform>P99 needs at least %Ln request</numerusform>
            <numerusform>P99 needs at least %Ln requests</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>these figures are of %Ln request(s).</source>
        <translation>
            <numerusform>these figures are of %Ln request.</numerusform>
            <numerusform>these figures are of %Ln requests.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ServerView</name>
    <message numerus="yes">
        <source>%Ln thread(s)</source>
        <translation>
            <numerusform>%Ln thread</numerusform>
            <numerusform>%Ln threads</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln slot(s) of {ctx} tokens</source>
        <translation>
            <numerusform>%Ln slot of {ctx} tokens</numerusform>
            <numerusform>%Ln slots of {ctx} tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SummaryMarker</name>
    <message numerus="yes">
        <source>Earlier turns summarised (%Ln message(s))</source>
        <translation>
            <numerusform>Earlier turns summarised (%Ln message)</numerusform>
            <numerusform>Earlier turns summarised (%Ln messages)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolsWindow</name>
    <message numerus="yes">
        <source>%n tool(s)</source>
        <translation>
            <numerusform>%n tool</numerusform>
            <numerusform>%n tools</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Ready: %n tool(s).</source>
        <translation>
            <numerusform>Ready: %n tool.</numerusform>
            <numerusform>Ready: %n tools.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WarmingController</name>
    <message numerus="yes">
        <source>Predicted vs actual first token: median error {error} % (%Ln request(s))</source>
        <translation>
            <numerusform>Predicted vs actual first token: median error {error} % (%Ln request)</numerusform>
            <numerusform>Predicted vs actual first token: median error {error} % (%Ln requests)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message numerus="yes">
        <source>{kind} on port {port} with %Ln model(s)</source>
        <translation>
            <numerusform>{kind} on port {port} with %Ln model</numerusform>
            <numerusform>{kind} on port {port} with %Ln models</numerusform>
        </translation>
    </message>
</context>
</TS>
