<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GraphicsScene</name>
    <message>
        <source>Export...</source>
        <translation>导出…</translation>
    </message>
</context>
<context>
    <name>PlotItem</name>
    <message>
        <source>Transforms</source>
        <translation>变换</translation>
    </message>
    <message>
        <source>Downsample</source>
        <translation>降采样</translation>
    </message>
    <message>
        <source>Average</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>透明度</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>数据点</translation>
    </message>
    <message>
        <source>Plot Options</source>
        <translation>图表选项</translation>
    </message>
</context>
<context>
    <name>ViewBox</name>
    <message>
        <source>ViewBox options</source>
        <translation>视图选项</translation>
    </message>
    <message>
        <source>View All</source>
        <translation>显示全部</translation>
    </message>
    <message>
        <source>Mouse Mode</source>
        <translation>鼠标模式</translation>
    </message>
    <message>
        <source>3 button</source>
        <translation>三键</translation>
    </message>
    <message>
        <source>1 button</source>
        <translation>单键</translation>
    </message>
</context>
</TS>
