import { Alert, Button, Col, DatePicker, Divider, Form, InputNumber, Row, Select, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { BatchMatrix } from '../../api/types';
import { AccountsSelect, ProductsSelect } from './pickers';
import { matrixCounts, TIME } from './shared';

export interface MatrixValues {
  product_ids: number[];
  themes: string[];
  tasks_each: number;
  text_count: number;
  image_count: number;
  fission_count: number;
  account_ids?: number[];
  start_date?: Dayjs | null;
  days?: number;
  post_times?: string[];
}

export const MATRIX_DEFAULTS: MatrixValues = {
  product_ids: [],
  themes: [],
  tasks_each: 1,
  text_count: 3,
  image_count: 3,
  fission_count: 0,
  account_ids: [],
  days: 7,
  post_times: ['20:00'],
};

const TIME_CHOICES = ['08:00', '09:00', '12:00', '18:00', '20:00', '21:00'];

/** The form's values as the matrix POST /batches takes: the schedule only when accounts are chosen. */
export function toMatrix(v: MatrixValues): BatchMatrix {
  const themes = [...new Set(v.themes.map((s) => s.trim()).filter(Boolean))];
  const accounts = v.account_ids ?? [];
  return {
    product_ids: v.product_ids,
    themes,
    tasks_each: v.tasks_each,
    text_count: v.text_count,
    image_count: v.image_count,
    fission_count: v.fission_count,
    ...(accounts.length > 0
      ? { account_ids: accounts, start_date: (v.start_date ?? dayjs().add(1, 'day')).format('YYYY-MM-DD'), days: v.days ?? 1, post_times: [...new Set(v.post_times ?? [])].sort() }
      : {}),
  };
}

/**
 * 表单: products × themes × tasks each, with the counts of every task, and, with accounts, a
 * schedule over days and posting times; live, it says how many tasks the batch makes and how
 * many posting slots there are, warning when there are fewer slots than tasks.
 */
export function MatrixForm({ onSubmit, pending, initialValues }: { onSubmit: (matrix: BatchMatrix) => void; pending: boolean; initialValues?: Partial<MatrixValues> }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<MatrixValues>();
  const values = { ...MATRIX_DEFAULTS, start_date: dayjs().add(1, 'day'), ...initialValues };
  const watched = Form.useWatch([], form) as Partial<MatrixValues> | undefined;
  const v = { ...values, ...(watched ?? {}) };
  const accounts = v.account_ids?.length ?? 0;
  const themes = new Set((v.themes ?? []).map((s) => s.trim()).filter(Boolean)).size;
  const times = new Set((v.post_times ?? []).filter((s) => TIME.test(s))).size;
  const counts = matrixCounts({
    products: v.product_ids?.length ?? 0,
    themes,
    tasksEach: v.tasks_each ?? 0,
    fission: v.fission_count ?? 0,
    accounts,
    days: v.days ?? 0,
    times,
  });
  const required = { required: true, message: t('form.required') };
  return (
    <Form<MatrixValues> form={form} layout="vertical" initialValues={values} onFinish={(all) => onSubmit(toMatrix(all))} data-testid="matrix-form">
      <Form.Item label={t('batches.form.products')} name="product_ids" rules={[{ ...required, type: 'array', min: 1 }]}>
        <ProductsSelect placeholder={t('batches.form.productsPlaceholder')} />
      </Form.Item>
      <Form.Item
        label={t('batches.form.themes')}
        name="themes"
        extra={t('batches.form.themesHint')}
        rules={[{ ...required, type: 'array', min: 1 }, { validator: (_, list?: string[]) => ((list ?? []).every((s) => s.trim().length <= 200) ? Promise.resolve() : Promise.reject(new Error(t('reason.validation.too_long', { field: t('batches.form.themes'), max: 200 })))) }]}
      >
        <Select mode="tags" open={false} suffixIcon={null} tokenSeparators={[',', '，', '\n']} placeholder={t('batches.form.themesPlaceholder')} aria-label={t('batches.form.themes')} />
      </Form.Item>
      <Row gutter={16}>
        <Col xs={12} md={6}>
          <Form.Item label={t('batches.form.tasksEach')} name="tasks_each" rules={[required]} tooltip={t('batches.form.tasksEachHint')}>
            <InputNumber min={1} max={10} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item label={t('batches.form.textCount')} name="text_count" rules={[required]}>
            <InputNumber min={1} max={30} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item label={t('batches.form.imageCount')} name="image_count" rules={[required]}>
            <InputNumber min={0} max={9} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col xs={12} md={6}>
          <Form.Item label={t('batches.form.fissionCount')} name="fission_count" rules={[required]} tooltip={t('batches.form.fissionHint')}>
            <InputNumber min={0} max={20} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
      </Row>
      <Divider titlePlacement="start" plain style={{ marginTop: 0 }}>
        {t('batches.form.schedule')}
      </Divider>
      <Form.Item label={t('batches.form.accounts')} name="account_ids">
        <AccountsSelect />
      </Form.Item>
      {accounts > 0 && (
        <Row gutter={16}>
          <Col xs={24} md={8}>
            <Form.Item label={t('batches.form.startDate')} name="start_date" rules={[required]}>
              <DatePicker style={{ width: '100%' }} allowClear={false} disabledDate={(d) => d.isBefore(dayjs(), 'day')} />
            </Form.Item>
          </Col>
          <Col xs={24} md={4}>
            <Form.Item label={t('batches.form.days')} name="days" rules={[required]}>
              <InputNumber min={1} max={31} precision={0} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item
              label={t('batches.form.postTimes')}
              name="post_times"
              rules={[
                { ...required, type: 'array', min: 1 },
                { validator: (_, list?: string[]) => ((list ?? []).every((s) => TIME.test(s)) ? Promise.resolve() : Promise.reject(new Error(t('batches.form.badTime')))) },
              ]}
            >
              <Select mode="tags" tokenSeparators={[',', '，', ' ']} options={TIME_CHOICES.map((value) => ({ value, label: value }))} placeholder={t('batches.form.postTimesPlaceholder')} aria-label={t('batches.form.postTimes')} />
            </Form.Item>
          </Col>
        </Row>
      )}
      <Alert
        type={counts.tooFewSlots ? 'warning' : 'info'}
        showIcon
        data-testid="matrix-summary"
        style={{ marginBottom: 16 }}
        title={
          <span data-testid="matrix-tasks">
            {t('batches.form.tasks', { count: counts.tasks })}
            {counts.fissions > 0 ? `，${t('batches.form.fissions', { count: counts.fissions })}` : ''}
          </span>
        }
        description={
          <>
            <Typography.Text type="secondary" style={{ display: 'block' }}>
              {t('batches.form.tasksFormula', { products: v.product_ids?.length ?? 0, themes, each: v.tasks_each ?? 0 })}
            </Typography.Text>
            {counts.slots !== null && (
              <span data-testid="matrix-slots" style={{ display: 'block' }}>
                {t('batches.form.slots', { count: counts.slots })}（{t('batches.form.slotsFormula', { accounts, days: v.days ?? 0, times })}）
              </span>
            )}
            {counts.tooFewSlots && (
              <Typography.Text strong role="alert" data-testid="matrix-too-few-slots" style={{ display: 'block' }}>
                {t('batches.form.tooFewSlots', { slots: counts.slots, tasks: counts.tasks })}
              </Typography.Text>
            )}
          </>
        }
      />
      <Button type="primary" htmlType="submit" loading={pending} disabled={counts.tasks === 0} data-testid="matrix-submit">
        {t('batches.form.submit')}
      </Button>
    </Form>
  );
}
