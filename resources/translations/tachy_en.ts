<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
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
    <name>WarmingController</name>
    <message numerus="yes">
        <source>Predicted vs actual first token: median error {error} % (%Ln request(s))</source>
        <translation>
            <numerusform>Predicted vs actual first token: median error {error} % (%Ln request)</numerusform>
            <numerusform>Predicted vs actual first token: median error {error} % (%Ln requests)</numerusform>
        </translation>
    </message>
</context>
</TS>
